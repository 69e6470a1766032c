/**
 * Authentication and the management tag matrix. Every request (but the few RabbitMQ leaves
 * open) carries HTTP Basic credentials; the user must hold a management tag; routes then ask
 * for more (administrator, monitoring, policymaker) or for access to a vhost. Per the spec a
 * failed login is 401 and a refusal after login is 403. With OAuth 2.0 configured,
 * `Authorization: Bearer <JWT>` is accepted too (RabbitMQ's OAuth 2.0 plugin); an invalid,
 * expired or wrongly signed token is 401.
 */
import type { FastifyRequest } from "fastify";
import type { PermissionChecker } from "../auth/permission-check.js";
import { isAdministrator, isManagementUser, isMonitor, isPolicymaker, type User } from "../auth/user.js";
import type { Broker, ClientContext } from "../broker/index.js";
import { BrokerError } from "../errors/broker-error.js";
import { isLoopbackAddress } from "../auth/peer-address.js";
import { sessionOf } from "../auth/oauth/token-login.js";
import type { TokenVerifier } from "../auth/oauth/token-verifier.js";
import type { LoginThrottle } from "../auth/login-throttle.js";
import { loginFailed, notAdministrator, notAuthorisedForObject, notAuthorisedForVhost, notManagementUser, notMonitor, objectNotFound } from "../errors/reasons.js";

export interface Caller {
  readonly user: User;
  readonly ctx: ClientContext;
  readonly permissions: PermissionChecker;
}

/**
 * Each request's login, done once: the request-rate limit needs the authenticated user to count
 * against, and the route handler needs the caller, so whichever asks first authenticates and the
 * other gets the same outcome (one password check, one throttle count, one token verification).
 */
export class RequestLogins {
  private readonly outcomes = new WeakMap<FastifyRequest, Promise<Caller>>();

  constructor(
    private readonly broker: Broker,
    private readonly loopbackUsers: readonly string[],
    private readonly tokens: TokenVerifier | null,
    private readonly throttle: LoginThrottle | null,
  ) {}

  callerOf(req: FastifyRequest): Promise<Caller> {
    let outcome = this.outcomes.get(req);
    if (outcome === undefined) {
      outcome = (async () => authenticate(this.broker, req, this.loopbackUsers, this.tokens, this.throttle))();
      this.outcomes.set(req, outcome);
    }
    return outcome;
  }
}

export function authenticate(broker: Broker, req: FastifyRequest, loopbackUsers: readonly string[], tokens: TokenVerifier | null = null, throttle: LoginThrottle | null = null): Caller | Promise<Caller> {
  const header = req.headers.authorization;
  if (!header) throw new BrokerError("notAuthorized", "");
  const address = req.socket.remoteAddress ?? "";
  const wait = throttle?.waitFor(address) ?? 0;
  if (wait > 0) throw new BrokerError("tooManyLogins", `Too many failed logins from this address; retry in ${Math.ceil(wait / 1000)} s`);
  if (tokens && header.slice(0, 7).toLowerCase() === "bearer ") return bearer(broker, tokens, header.slice(7).trim(), address, throttle);
  const m = /^Basic\s+(\S+)$/i.exec(header);
  if (!m) throw loginFailed();
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw loginFailed();
  const user = broker.authenticate(decoded.slice(0, colon), decoded.slice(colon + 1), "http");
  if (!user) {
    throttle?.failed(address);
    throw loginFailed();
  }
  throttle?.succeeded(address);
  if (loopbackUsers.includes(user.name) && !isLoopbackAddress(req.socket.remoteAddress ?? "")) {
    throw new BrokerError("notAuthorized", "User can only log in via localhost");
  }
  if (!isManagementUser(user)) throw notManagementUser();
  const permissions = broker.checkerFor(user.name);
  return { user, permissions, ctx: { permissions, owner: null } };
}

async function bearer(broker: Broker, tokens: TokenVerifier, token: string, address: string, throttle: LoginThrottle | null): Promise<Caller> {
  let session;
  try {
    session = sessionOf(broker.users, await tokens.verify(token));
  } catch {
    throttle?.failed(address);
    throw loginFailed();
  }
  throttle?.succeeded(address);
  if (!isManagementUser(session.user)) throw notManagementUser();
  return { user: session.user, permissions: session.permissions, ctx: { permissions: session.permissions, owner: null } };
}

export function requireAdministrator(c: Caller): void {
  if (!isAdministrator(c.user)) throw notAdministrator();
}

export function requireMonitor(c: Caller): void {
  if (!isMonitor(c.user)) throw notMonitor();
}

export function requirePolicymaker(c: Caller): void {
  // RabbitMQ's policy and parameter routes word this refusal so.
  if (!isPolicymaker(c.user)) throw notAuthorisedForObject();
}

/**
 * The vhosts whose objects a caller may list and read (RabbitMQ's is_authorized_vhost and
 * filter_vhost): administrators every vhost; everyone else, monitors included, only those they
 * hold a permission in (list_login_vhosts).
 */
export function canSeeVhost(c: Caller, vhost: string): boolean {
  return isAdministrator(c.user) || c.permissions.hasVhostAccess(vhost);
}

/**
 * The vhosts a caller may know of (RabbitMQ's list_visible_vhosts): monitors learn of every
 * vhost, with its limits and its share of the node's figures; others only their own.
 */
export function isVisibleVhost(c: Caller, vhost: string): boolean {
  return isMonitor(c.user) || c.permissions.hasVhostAccess(vhost);
}

/** For routes RabbitMQ authorises with is_authorized_vhost_visible (vhost limits). */
export function requireVisibleVhost(broker: Broker, c: Caller, vhost: string): void {
  if (!broker.vhosts.has(vhost)) throw objectNotFound();
  if (!isAdministrator(c.user) && !isVisibleVhost(c, vhost)) throw notAuthorisedForVhost();
}

export function requireVhost(broker: Broker, c: Caller, vhost: string): void {
  if (!broker.vhosts.has(vhost)) throw objectNotFound();
  if (!canSeeVhost(c, vhost)) throw notAuthorisedForVhost();
}
