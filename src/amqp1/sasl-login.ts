/**
 * SASL for AMQP 1.0 (part 5 §5.3): the mechanisms offered and the login each performs, as
 * RabbitMQ 4 does on its AMQP port: PLAIN (the broker's users and, with OAuth 2.0, tokens: the
 * same login as AMQP 0-9-1, src/amqp/connection/login.ts), ANONYMOUS when an anonymous login user
 * is configured (RabbitMQ 4's anonymous_login_user/pass, guest/guest by default: so only from
 * loopback while guest is a loopback user), and EXTERNAL over TLS with a verified client
 * certificate (the certificate's name is the user, which must exist).
 */
import type { PermissionChecker } from "../auth/permission-check.js";
import type { Broker } from "../broker/index.js";
import { BrokerError } from "../errors/broker-error.js";
import type { Logger } from "../logging/logger.js";
import { logIn, type LoginSettings } from "../amqp/connection/login.js";
import { parseSaslResponse } from "../amqp/connection/sasl.js";

export interface SaslSettings extends LoginSettings {
  /** The user and password of SASL ANONYMOUS; null: ANONYMOUS is not offered. */
  readonly anonymous: { readonly user: string; readonly password: string } | null;
}

export interface SaslPeer {
  readonly peerHost: string;
  readonly isLoopback: boolean;
  /** The verified client certificate's name (AMQPS); null without one. */
  readonly certName: string | null;
}

export interface SaslLogin {
  readonly user: string;
  readonly permissions: PermissionChecker;
  readonly mechanism: string;
  /** ms since the epoch when a token login's token expires; null otherwise (connection-credential.ts). */
  readonly expiresAt: number | null;
}

/** The mechanisms this peer is offered, in RabbitMQ 4's order of preference. */
export function saslMechanisms(s: SaslSettings, peer: SaslPeer): string[] {
  const out: string[] = [];
  if (peer.certName !== null) out.push("EXTERNAL");
  out.push("PLAIN");
  if (s.anonymous !== null) out.push("ANONYMOUS");
  return out;
}

const refused = (mechanism: string): BrokerError => new BrokerError("accessRefused", `Login was refused using authentication mechanism ${mechanism}`);

/** Logs in with sasl-init's mechanism and initial response; throws BrokerError when refused. */
export function saslLogIn(broker: Broker, s: SaslSettings, log: Logger, peer: SaslPeer, mechanism: string, response: Buffer): SaslLogin | Promise<SaslLogin> {
  if (!saslMechanisms(s, peer).includes(mechanism)) throw refused(mechanism);
  if (mechanism === "EXTERNAL") {
    const user = peer.certName!;
    const known = broker.users.get(user) !== undefined;
    broker.authAttempts.record("amqp10", known);
    if (!known) throw refused(mechanism);
    if (s.loopbackUsers.includes(user) && !peer.isLoopback) throw refused(mechanism);
    return { user, permissions: broker.checkerFor(user), mechanism, expiresAt: null };
  }
  let username: string;
  let password: string;
  if (mechanism === "ANONYMOUS") {
    ({ user: username, password } = s.anonymous!);
  } else {
    const creds = parseSaslResponse("PLAIN", response);
    if (creds === null) throw refused(mechanism);
    ({ username, password } = creds);
  }
  const done = logIn(broker, s, log, { mechanism, username, password, peerHost: peer.peerHost, peerIsLoopback: peer.isLoopback, protocol: "amqp10" });
  if (done instanceof Promise) return done.then((l) => ({ user: l.user, permissions: l.permissions, mechanism, expiresAt: l.expiresAt }));
  return { user: done.user, permissions: done.permissions, mechanism, expiresAt: done.expiresAt };
}
