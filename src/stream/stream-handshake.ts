/**
 * The stream protocol's handshake (PROTOCOL.adoc, "Authentication"): PeerProperties, SaslHandshake,
 * SaslAuthenticate (PLAIN against the broker's users, or an OAuth 2.0 token as the password as
 * AMQP accepts it; EXTERNAL over TLS as the user its verified client certificate names, offered
 * only to such a client as RabbitMQ's rabbit_auth_mechanism_ssl, and on a cluster's leader the
 * EXTERNAL a follower vouches for (auth/forwarded-certificate.ts); loopback-only users only from
 * loopback; failed logins throttled), the server's
 * Tune, Open (vhost access and connection limits). Each refusal answers with RabbitMQ's code.
 */
import { FORWARDED_EXTERNAL } from "../auth/forwarded-certificate.js";
import { isTokenLogin, sessionOf } from "../auth/oauth/token-login.js";
import type { PermissionChecker } from "../auth/permission-check.js";
import { PRODUCT, type VHost } from "../broker/index.js";
import { RC } from "./protocol.js";
import type { StreamNode } from "./stream-node.js";
import type { StreamPeer } from "./stream-records.js";

/** The mechanisms SaslHandshake offers a client: EXTERNAL only with a verified client certificate (`certName`). */
export function saslMechanisms(certName: string | null): readonly string[] {
  return certName === null ? ["PLAIN"] : ["PLAIN", "EXTERNAL"];
}

/** The server's peer properties. `version`: clients choose command versions from it (see docs/COMPATIBILITY.md). */
export function serverPeerProperties(clusterName: string): [string, string][] {
  return [
    ["product", PRODUCT],
    ["version", "3.13.0"],
    ["cluster_name", clusterName],
    ["platform", `Node.js ${process.version}`],
    ["copyright", "Copyright (c) Coney contributors"],
    ["information", "Licensed under the MIT License. A RabbitMQ-compatible broker."],
  ];
}

export type AuthOutcome = { readonly ok: true; readonly user: string; readonly permissions: PermissionChecker } | { readonly ok: false; readonly code: number; readonly why: string };

/** SASL PLAIN's response: authzid NUL authcid NUL password. */
export function parsePlain(data: Buffer | null): { user: string; password: string } | null {
  if (data === null) return null;
  const parts = data.toString("utf8").split("\u0000");
  if (parts.length !== 3) return null;
  return { user: parts[1]!, password: parts[2]! };
}

export function authenticate(node: StreamNode, mechanism: string | null, data: Buffer | null, peer: StreamPeer): AuthOutcome | Promise<AuthOutcome> {
  const broker = node.broker;
  const s = node.settings;
  const { peerHost, isLoopback: loopback } = peer;
  if (mechanism === "EXTERNAL" && peer.certName !== null) return certificateLogin(node, peer.certName, peerHost, loopback);
  if (mechanism === FORWARDED_EXTERNAL) return forwardedCertificateLogin(node, data, peerHost);
  if (mechanism !== "PLAIN") return { ok: false, code: RC.saslMechanismNotSupported, why: `SASL mechanism ${mechanism ?? "(none)"} is not supported` };
  const creds = parsePlain(data);
  if (creds === null) {
    broker.authAttempts.record("stream", false);
    return { ok: false, code: RC.saslError, why: "malformed SASL PLAIN response" };
  }
  if (s.loginThrottle && s.loginThrottle.waitFor(peerHost) > 0) {
    broker.authAttempts.record("stream", false);
    return { ok: false, code: RC.authenticationFailure, why: "too many failed logins from this address" };
  }
  if (isTokenLogin(s.tokens, creds.password)) {
    return s.tokens.verify(creds.password).then(
      (login) => {
        broker.authAttempts.record("stream", true);
        s.loginThrottle?.succeeded(peerHost);
        const session = sessionOf(broker.users, login);
        return { ok: true, user: session.user.name, permissions: session.permissions } as const;
      },
      () => passwordLogin(node, creds.user, creds.password, peerHost, loopback),
    );
  }
  return passwordLogin(node, creds.user, creds.password, peerHost, loopback);
}

/** SASL EXTERNAL: the certificate's name must be a user (no password is checked, as RabbitMQ's internal backend). */
function certificateLogin(node: StreamNode, user: string, peerHost: string, loopback: boolean): AuthOutcome {
  const broker = node.broker;
  const known = broker.users.get(user) !== undefined;
  broker.authAttempts.record("stream", known);
  if (!known) {
    node.settings.loginThrottle?.failed(peerHost);
    return { ok: false, code: RC.authenticationFailure, why: `no user '${user}' for the client certificate` };
  }
  if (node.settings.loopbackUsers.includes(user) && !loopback) return { ok: false, code: RC.saslAuthenticationFailureLoopback, why: `user '${user}' can only connect via localhost` };
  return { ok: true, user, permissions: broker.checkerFor(user) };
}

/** EXTERNAL of a follower's TLS client, vouched for by that follower with the cluster's secret; refused on a single node. */
function forwardedCertificateLogin(node: StreamNode, data: Buffer | null, peerHost: string): AuthOutcome {
  const vouched = node.cluster?.certificateVouchedFor?.(data) ?? null;
  if (vouched !== null) return certificateLogin(node, vouched.user, peerHost, vouched.loopback);
  node.broker.authAttempts.record("stream", false);
  node.settings.loginThrottle?.failed(peerHost);
  return { ok: false, code: RC.authenticationFailure, why: "a forwarded certificate login no cluster node vouched for" };
}

function passwordLogin(node: StreamNode, user: string, password: string, peerHost: string, loopback: boolean): AuthOutcome {
  const broker = node.broker;
  const s = node.settings;
  if (!broker.authenticate(user, password, "stream")) {
    s.loginThrottle?.failed(peerHost);
    return { ok: false, code: RC.authenticationFailure, why: `login failed for user '${user}'` };
  }
  s.loginThrottle?.succeeded(peerHost);
  if (s.loopbackUsers.includes(user) && !loopback) return { ok: false, code: RC.saslAuthenticationFailureLoopback, why: `user '${user}' can only connect via localhost` };
  return { ok: true, user, permissions: broker.checkerFor(user) };
}

/** Open: the vhost must exist and the user have access to it; the limits must allow one more connection. */
export function openVhost(node: StreamNode, permissions: PermissionChecker, vhost: string): { vhost: VHost } | { code: number; why: string } {
  const v = node.broker.vhosts.get(vhost);
  if (!v || !permissions.hasVhostAccess(vhost)) return { code: RC.virtualHostAccessFailure, why: `access to vhost '${vhost}' refused for user '${permissions.user.name}'` };
  try {
    return { vhost: node.broker.admitConnection(permissions, vhost, node.settings.maxConnections) };
  } catch (err) {
    return { code: RC.virtualHostAccessFailure, why: err instanceof Error ? err.message : String(err) };
  }
}
