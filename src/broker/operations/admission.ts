/**
 * Access checks at the door, in the spec's order: authentication (a user and password, counted
 * per protocol for /api/auth/attempts) → vhost access → the limits that admit one more
 * connection or channel (vhost, node and user limits, with RabbitMQ's rabbit_reader texts). The
 * per-resource checks (configure/write/read patterns) are the PermissionChecker's, made by each
 * operation through its ClientContext.
 */
import type { AuthProtocol } from "../../auth/auth-attempts.js";
import { verifyPassword } from "../../auth/password.js";
import { PermissionChecker } from "../../auth/permission-check.js";
import type { User } from "../../auth/user.js";
import { BrokerError } from "../../errors/broker-error.js";
import { vhostLimitsOf } from "../runtime-parameters.js";
import type { VHost } from "../vhost.js";
import type { ChannelSource } from "../connection-registry.js";
import { announceChannel, announceLogin } from "../events/runtime-events.js";
import type { BrokerState } from "./broker-state.js";

/** A permission checker for a logged-in user; one per connection or HTTP request. */
export function checkerFor(b: BrokerState, userName: string): PermissionChecker {
  const user = b.users.get(userName);
  if (!user) throw new BrokerError("notAuthorized", `user '${userName}' does not exist`);
  return new PermissionChecker(b.users, user);
}

/**
 * Checks a username and cleartext password against the internal users; null when refused.
 * With `protocol`, the attempt is counted for /api/auth/attempts.
 */
export function authenticate(b: BrokerState, username: string, password: string, protocol?: AuthProtocol): User | null {
  const user = b.users.get(username);
  const ok = user !== undefined && verifyPassword(password, user.passwordHash, user.hashingAlgorithm);
  if (protocol) b.authAttempts.record(protocol, ok);
  if (protocol && b.events.detailWanted) announceLogin(b, username, protocol, ok);
  return ok ? user : null;
}

/**
 * connection.open: the vhost must exist, the user must hold a permission in it, and the
 * vhost's max-connections limit, the node's limit (`nodeMaxConnections`, 0 = none) and the
 * user's max-connections limit must each allow one more.
 */
export function admitConnection(b: BrokerState, permissions: PermissionChecker, vhostName: string, nodeMaxConnections: number): VHost {
  const v = b.vhosts.get(vhostName);
  if (!v) throw new BrokerError("notAllowed", `vhost ${vhostName} not found`);
  permissions.checkVhost(vhostName);
  const user = permissions.user;
  const limit = vhostLimitsOf(v.parameters).maxConnections;
  if (limit >= 0 && b.connections.inVhost(vhostName).length >= limit) {
    throw new BrokerError("notAllowed", `access to vhost '${vhostName}' refused for user '${user.name}': connection limit (${limit}) is reached`);
  }
  if (nodeMaxConnections > 0 && b.connections.size >= nodeMaxConnections) {
    throw new BrokerError("notAllowed", `connection refused: node connection limit (${nodeMaxConnections}) is reached`);
  }
  const userMax = user.limits["max-connections"];
  if (userMax !== undefined && userMax >= 0 && b.connections.ofUser(user.name).length >= userMax) {
    throw new BrokerError("notAllowed", `Connection refused for user '${user.name}': user connection limit (${userMax}) is reached`);
  }
  return v;
}

/** channel.open: the user's max-channels limit over all its connections. */
export function admitChannel(b: BrokerState, userName: string): void {
  // The registry's record, not the login's copy: a limit set now applies to open connections.
  const limit = b.users.get(userName)?.limits["max-channels"];
  if (limit === undefined || limit < 0) return;
  let open = 0;
  for (const c of b.connections.ofUser(userName)) open += c.channelCount;
  if (open >= limit) {
    throw new BrokerError("notAllowed", `number of channels opened for user '${userName}' has reached the maximum allowed user limit of (${limit})`);
  }
}

/** A channel opened or closed: counted (channel_created / channel_closed) and announced while wanted. */
export function channelChanged(b: BrokerState, channel: ChannelSource, opened: boolean): void {
  if (opened) b.stats.channelCreated++;
  else b.stats.channelClosed++;
  if (b.events.detailWanted) announceChannel(b, channel.info(), opened);
}
