/**
 * CONNECT's login, in RabbitMQ's MQTT order: credentials (a user name and a non-empty password;
 * without both, with mqtt.ssl_cert_login, the verified TLS client certificate's name, which logs
 * in without password; else the default user when anonymous logins are allowed), the vhost
 * (mqtt-vhost.ts: for a client with a certificate the mqtt_default_vhosts mapping first, then
 * `vhost:user`, the port-to-vhost mapping, or mqtt.vhost), the vhost must exist, the password must match an internal user or, with OAuth 2.0
 * configured, a password that is a JWT must verify as a token (any user name: the token names the
 * user; a JWT-shaped password that does not verify is still tried as a password, as AMQP does),
 * loopback-only users only from loopback, the user needs access to the vhost, and the connection
 * limits must allow one more. Each refusal is the reason code RabbitMQ answers with. Every attempt
 * counts in /api/auth/attempts as "mqtt". A token is verified asynchronously: the outcome is then
 * a promise (the connection reads nothing meanwhile).
 */
import type { IConnectPacket } from "mqtt-packet";
import type { PermissionChecker } from "../auth/permission-check.js";
import { isTokenLogin, sessionOf } from "../auth/oauth/token-login.js";
import type { Broker, VHost } from "../broker/index.js";
import type { MqttNode } from "./mqtt-node.js";
import { RC } from "./mqtt-reason-codes.js";
import { vhostOfLogin } from "./mqtt-vhost.js";

export interface MqttLogin {
  readonly user: string;
  readonly vhost: VHost;
  readonly permissions: PermissionChecker;
  /** ms since the epoch when a token login's token expires; null otherwise. */
  readonly expiresAt: number | null;
}

export type LoginOutcome = { readonly ok: true; readonly login: MqttLogin } | { readonly ok: false; readonly reasonCode: number; readonly why: string };

/** Where the CONNECT came from. */
export interface LoginPeer {
  readonly peerHost: string;
  readonly isLoopback: boolean;
  /** The listener's port, for the port-to-vhost mapping. */
  readonly port: number;
  /** The verified client certificate's name (MQTTS); null without one. */
  readonly certName: string | null;
}

const refuse = (reasonCode: number, why: string): LoginOutcome => ({ ok: false, reasonCode, why });

export function logInMqtt(node: MqttNode, p: IConnectPacket, peer: LoginPeer, clientId: string): LoginOutcome | Promise<LoginOutcome> {
  const s = node.settings;
  const broker = node.broker;
  let username = p.username;
  let password = p.password?.toString("utf8");
  const certLogin = username === undefined && password === undefined && s.sslCertLogin && peer.certName !== null;
  if (certLogin) username = peer.certName!;
  else if (username === undefined && password === undefined && s.allowAnonymous) {
    username = s.defaultUser;
    password = s.defaultPass;
  }
  if (username === undefined || (!certLogin && (password === undefined || password === ""))) {
    broker.authAttempts.record("mqtt", false);
    return refuse(RC.badUserNameOrPassword, username === undefined ? "no credentials provided" : "no password provided");
  }
  const { vhost, user } = vhostOfLogin(username, peer.port, s.vhost, broker.globalParameters, peer.certName);
  if (s.loginThrottle && s.loginThrottle.waitFor(peer.peerHost) > 0) {
    broker.authAttempts.record("mqtt", false);
    return refuse(RC.badUserNameOrPassword, "too many failed logins from this address");
  }
  const v = broker.vhosts.get(vhost);
  if (!v) {
    broker.authAttempts.record("mqtt", false);
    return refuse(RC.badUserNameOrPassword, `vhost '${vhost}' does not exist`);
  }
  if (certLogin) return certificateLogin(node, user, v, peer, clientId);
  const secret = password!;
  if (isTokenLogin(s.tokens, secret)) {
    return s.tokens.verify(secret).then(
      (login) => {
        broker.authAttempts.record("mqtt", true);
        s.loginThrottle?.succeeded(peer.peerHost);
        const session = sessionOf(broker.users, login);
        return admit(node, session.user.name, v, session.permissions, session.expiresAt, clientId);
      },
      (err: unknown) => {
        node.log.warn("MQTT token login refused; trying the password", { reason: err instanceof Error ? err.message : String(err) });
        return passwordLogin(node, broker, user, secret, v, peer, clientId);
      },
    );
  }
  return passwordLogin(node, broker, user, secret, v, peer, clientId);
}

function passwordLogin(node: MqttNode, broker: Broker, user: string, password: string, v: VHost, peer: LoginPeer, clientId: string): LoginOutcome {
  const s = node.settings;
  if (!broker.authenticate(user, password, "mqtt")) {
    s.loginThrottle?.failed(peer.peerHost);
    return refuse(RC.badUserNameOrPassword, `login failed for user '${user}'`);
  }
  s.loginThrottle?.succeeded(peer.peerHost);
  if (s.loopbackUsers.includes(user) && !peer.isLoopback) return refuse(RC.notAuthorized, `user '${user}' can only connect via localhost`);
  return admit(node, user, v, broker.checkerFor(user), null, clientId);
}

/** mqtt.ssl_cert_login: the certificate was verified by the TLS handshake; the user must exist (no password asked). */
function certificateLogin(node: MqttNode, user: string, v: VHost, peer: LoginPeer, clientId: string): LoginOutcome {
  const broker = node.broker;
  const known = broker.users.get(user) !== undefined;
  broker.authAttempts.record("mqtt", known);
  if (!known) return refuse(RC.badUserNameOrPassword, `no user '${user}' for the client certificate`);
  if (node.settings.loopbackUsers.includes(user) && !peer.isLoopback) return refuse(RC.notAuthorized, `user '${user}' can only connect via localhost`);
  return admit(node, user, v, broker.checkerFor(user), null, clientId);
}

/** Vhost access and the connection limits; the checker learns the client id for `{client_id}`. */
function admit(node: MqttNode, user: string, v: VHost, permissions: PermissionChecker, expiresAt: number | null, clientId: string): LoginOutcome {
  if (!permissions.hasVhostAccess(v.name)) return refuse(RC.notAuthorized, `access to vhost '${v.name}' refused for user '${user}'`);
  try {
    node.broker.admitConnection(permissions, v.name, node.settings.maxConnections);
  } catch (err) {
    return refuse(RC.quotaExceeded, err instanceof Error ? err.message : String(err));
  }
  permissions.clientId = clientId;
  return { ok: true, login: { user, vhost: v, permissions, expiresAt } };
}
