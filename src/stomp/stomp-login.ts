/**
 * CONNECT's login, as rabbitmq_stomp decides it: `login` and `passcode` (without both, the
 * stomp.default_user when configured; with stomp.ssl_cert_login, over TLS with a verified client
 * certificate and no credentials, the certificate's name with no password), `host` as the vhost
 * (stomp.default_vhost without it), the vhost must exist and the user be allowed in it,
 * loopback-only users only from loopback, and the connection limits. A passcode that is a JWT,
 * with OAuth 2.0 configured, is verified as a token (the outcome is then a promise). Every
 * attempt counts in /api/auth/attempts as "stomp".
 */
import type { PermissionChecker } from "../auth/permission-check.js";
import { isTokenLogin, sessionOf } from "../auth/oauth/token-login.js";
import type { VHost } from "../broker/index.js";
import { accessRefused, stompError, vhostDenied, type StompError } from "./stomp-errors.js";
import type { StompNode } from "./stomp-node.js";

export interface StompLogin {
  readonly user: string;
  readonly vhost: VHost;
  readonly permissions: PermissionChecker;
  /** ms since the epoch when a token login's token expires; null otherwise. */
  readonly expiresAt: number | null;
}

export type StompLoginOutcome = { readonly ok: true; readonly login: StompLogin } | { readonly ok: false; readonly error: StompError };

export interface StompLoginPeer {
  readonly peerHost: string;
  readonly isLoopback: boolean;
  /** The verified client certificate's name (over TLS); null without one. */
  readonly certName: string | null;
}

const refuse = (error: StompError): StompLoginOutcome => ({ ok: false, error });

export function logInStomp(node: StompNode, login: string | undefined, passcode: string | undefined, host: string | undefined, peer: StompLoginPeer): StompLoginOutcome | Promise<StompLoginOutcome> {
  const s = node.settings;
  const broker = node.broker;
  const certLogin = login === undefined && passcode === undefined && s.sslCertLogin && peer.certName !== null;
  let user = login;
  let secret = passcode;
  if (certLogin) user = peer.certName!;
  else if (user === undefined && s.defaultUser !== null) {
    user = s.defaultUser;
    secret = s.defaultPass;
  }
  if (user === undefined) {
    broker.authAttempts.record("stomp", false);
    return refuse(accessRefused(""));
  }
  if (s.loginThrottle && s.loginThrottle.waitFor(peer.peerHost) > 0) {
    broker.authAttempts.record("stomp", false);
    return refuse(accessRefused(user));
  }
  const vhostName = host === undefined || host === "" ? s.defaultVhost : host;
  const v = broker.vhosts.get(vhostName);
  if (certLogin) {
    const known = broker.users.get(user) !== undefined;
    broker.authAttempts.record("stomp", known);
    if (!known) return refuse(accessRefused(user));
    return admit(node, user, v, vhostName, broker.checkerFor(user), null, peer);
  }
  const pass = secret ?? "";
  if (isTokenLogin(s.tokens, pass)) {
    return s.tokens.verify(pass).then(
      (t) => {
        broker.authAttempts.record("stomp", true);
        const session = sessionOf(broker.users, t);
        return admit(node, session.user.name, v, vhostName, session.permissions, session.expiresAt, null);
      },
      () => passwordLogin(node, user!, pass, v, vhostName, peer),
    );
  }
  return passwordLogin(node, user, pass, v, vhostName, peer);
}

function passwordLogin(node: StompNode, user: string, pass: string, v: VHost | undefined, vhostName: string, peer: StompLoginPeer): StompLoginOutcome {
  const s = node.settings;
  if (!node.broker.authenticate(user, pass, "stomp")) {
    s.loginThrottle?.failed(peer.peerHost);
    return refuse(accessRefused(user));
  }
  s.loginThrottle?.succeeded(peer.peerHost);
  return admit(node, user, v, vhostName, node.broker.checkerFor(user), null, peer);
}

/** Vhost existence and access, loopback-only users (null peer: a token user, never loopback-only), connection limits. */
function admit(node: StompNode, user: string, v: VHost | undefined, vhostName: string, permissions: PermissionChecker, expiresAt: number | null, peer: StompLoginPeer | null): StompLoginOutcome {
  if (peer !== null && node.settings.loopbackUsers.includes(user) && !peer.isLoopback) return refuse(stompError("Bad CONNECT", `User '${user}' can only connect via localhost\n`));
  if (v === undefined || !permissions.hasVhostAccess(v.name)) return refuse(vhostDenied(vhostName));
  try {
    node.broker.admitConnection(permissions, v.name, node.settings.maxConnections);
  } catch (err) {
    return refuse(stompError("Bad CONNECT", err instanceof Error ? err.message : String(err)));
  }
  return { ok: true, login: { user, vhost: v, permissions, expiresAt } };
}
