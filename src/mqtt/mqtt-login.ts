/**
 * CONNECT's login, in RabbitMQ's MQTT order: credentials (or the default user when anonymous
 * logins are allowed), the vhost from a `vhost:user` user name or mqtt.vhost, the vhost must
 * exist, the password must match an internal user, loopback-only users only from loopback, the
 * user needs access to the vhost, and the connection limits must allow one more. Each refusal is
 * the reason code RabbitMQ answers with. Every attempt counts in /api/auth/attempts as "mqtt".
 */
import type { IConnectPacket } from "mqtt-packet";
import type { PermissionChecker } from "../auth/permission-check.js";
import type { VHost } from "../broker/index.js";
import type { MqttNode } from "./mqtt-node.js";
import { RC } from "./mqtt-reason-codes.js";

export interface MqttLogin {
  readonly user: string;
  readonly vhost: VHost;
  readonly permissions: PermissionChecker;
}

export type LoginOutcome = { readonly ok: true; readonly login: MqttLogin } | { readonly ok: false; readonly reasonCode: number; readonly why: string };

const refuse = (reasonCode: number, why: string): LoginOutcome => ({ ok: false, reasonCode, why });

/** RabbitMQ's get_vhost_username: "vhost:user" names the vhost, a plain name gets the default. */
export function splitVhostUser(name: string, defaultVhost: string): { vhost: string; user: string } {
  const i = name.indexOf(":");
  return i < 0 ? { vhost: defaultVhost, user: name } : { vhost: name.slice(0, i), user: name.slice(i + 1) };
}

export function logInMqtt(node: MqttNode, p: IConnectPacket, peerHost: string, peerIsLoopback: boolean): LoginOutcome {
  const s = node.settings;
  const broker = node.broker;
  let username = p.username;
  let password = p.password?.toString("utf8");
  if (username === undefined && password === undefined && s.allowAnonymous) {
    username = s.defaultUser;
    password = s.defaultPass;
  }
  if (username === undefined || password === undefined) {
    broker.authAttempts.record("mqtt", false);
    return refuse(RC.badUserNameOrPassword, username === undefined ? "no credentials provided" : "no password provided");
  }
  const { vhost, user } = splitVhostUser(username, s.vhost);
  if (s.loginThrottle && s.loginThrottle.waitFor(peerHost) > 0) {
    broker.authAttempts.record("mqtt", false);
    return refuse(RC.badUserNameOrPassword, "too many failed logins from this address");
  }
  const v = broker.vhosts.get(vhost);
  if (!v) {
    broker.authAttempts.record("mqtt", false);
    return refuse(RC.badUserNameOrPassword, `vhost '${vhost}' does not exist`);
  }
  if (!broker.authenticate(user, password, "mqtt")) {
    s.loginThrottle?.failed(peerHost);
    return refuse(RC.badUserNameOrPassword, `login failed for user '${user}'`);
  }
  s.loginThrottle?.succeeded(peerHost);
  if (s.loopbackUsers.includes(user) && !peerIsLoopback) return refuse(RC.notAuthorized, `user '${user}' can only connect via localhost`);
  const permissions = broker.checkerFor(user);
  if (!permissions.hasVhostAccess(vhost)) return refuse(RC.notAuthorized, `access to vhost '${vhost}' refused for user '${user}'`);
  try {
    broker.admitConnection(permissions, vhost, s.maxConnections);
  } catch (err) {
    return refuse(RC.quotaExceeded, err instanceof Error ? err.message : String(err));
  }
  return { ok: true, login: { user, vhost: v, permissions } };
}
