/**
 * The authenticate step of the AMQP handshake, and what a token login keeps alive afterwards.
 * A login is refused, with RabbitMQ's one ACCESS_REFUSED text whatever the reason (the reason
 * goes to the log), when the address is throttled after failed logins, the password or token is
 * wrong, or a loopback-only user connects from elsewhere. With OAuth 2.0 configured a password
 * that is a JWT is verified as a token (any user name), and checked as an internal user's
 * password when it does not verify; after a token login the connection must close when the
 * token expires, unless connection.update-secret brings a fresh one for the same user.
 */
import type { PermissionChecker } from "../../auth/permission-check.js";
import type { LoginThrottle } from "../../auth/login-throttle.js";
import type { AuthProtocol } from "../../auth/auth-attempts.js";
import { isTokenLogin, sessionOf } from "../../auth/oauth/token-login.js";
import type { TokenLogin, TokenVerifier } from "../../auth/oauth/token-verifier.js";
import type { Broker } from "../../broker/index.js";
import { BrokerError } from "../../errors/broker-error.js";
import type { Logger } from "../../logging/logger.js";

export interface LoginSettings {
  readonly tokens: TokenVerifier | null;
  readonly throttle: LoginThrottle | null;
  /** Users that may only connect from loopback addresses (RabbitMQ loopback_users). */
  readonly loopbackUsers: readonly string[];
}

export interface LoggedIn {
  readonly user: string;
  readonly permissions: PermissionChecker;
  /** ms since the epoch when a token login's token expires; null for passwords and tokens without exp. */
  readonly expiresAt: number | null;
}

function refused(mechanism: string): BrokerError {
  return new BrokerError("accessRefused", `Login was refused using authentication mechanism ${mechanism}. For details see the broker logfile.`);
}

/** One try at logging in: what the client sent, and from where. */
export interface LoginAttempt {
  readonly mechanism: string;
  readonly username: string;
  readonly password: string;
  readonly peerHost: string;
  readonly peerIsLoopback: boolean;
  /** Which protocol's auth attempts it counts as (default amqp091; AMQP 1.0 shares this login). */
  readonly protocol?: AuthProtocol;
}

/** The handshake's authenticate step; a token is verified asynchronously (the handshake reads nothing meanwhile). */
export function logIn(broker: Broker, s: LoginSettings, log: Logger, a: LoginAttempt): LoggedIn | Promise<LoggedIn> {
  if (s.throttle && s.throttle.waitFor(a.peerHost) > 0) {
    log.warn("login refused: too many failed logins from this address", { user: a.username });
    throw refused(a.mechanism);
  }
  if (isTokenLogin(s.tokens, a.password)) {
    // RabbitMQ tries its auth backends in turn: a JWT-shaped secret that is no valid token may
    // still be an internal user's password.
    return verifiedToken(broker, s.tokens, log, a).then((l) => {
      if (l === null) return passwordLogIn(broker, s, log, a);
      s.throttle?.succeeded(a.peerHost);
      return l;
    });
  }
  return passwordLogIn(broker, s, log, a);
}

function passwordLogIn(broker: Broker, s: LoginSettings, log: Logger, a: LoginAttempt): LoggedIn {
  const user = broker.authenticate(a.username, a.password, a.protocol ?? "amqp091");
  if (!user) {
    s.throttle?.failed(a.peerHost);
    log.warn("login refused", { user: a.username, mechanism: a.mechanism });
    throw refused(a.mechanism);
  }
  s.throttle?.succeeded(a.peerHost);
  if (s.loopbackUsers.includes(a.username) && !a.peerIsLoopback) {
    log.warn(`${a.mechanism} login refused: user '${a.username}' can only connect via localhost`);
    throw refused(a.mechanism);
  }
  return { user: a.username, permissions: broker.checkerFor(a.username), expiresAt: null };
}

/** The token's login, or null when it does not verify (the reason is logged). */
async function verifiedToken(broker: Broker, tokens: TokenVerifier, log: Logger, a: LoginAttempt): Promise<LoggedIn | null> {
  let login: TokenLogin;
  try {
    login = await tokens.verify(a.password);
  } catch (err) {
    log.warn("token login refused", { mechanism: a.mechanism, reason: err instanceof Error ? err.message : String(err) });
    return null;
  }
  const session = sessionOf(broker.users, login);
  return { user: session.user.name, permissions: session.permissions, expiresAt: session.expiresAt };
}

/**
 * connection.update-secret (RabbitMQ extension). A password login (an internal user) is answered
 * update-secret-ok and nothing changes: RabbitMQ 3.10 only re-checks backends whose state can
 * expire, and an internal user's cannot (its permissions are read live anyway). A token login can
 * only take a new token that names the same user; its grants replace the old ones in the checker
 * every channel holds. Refuses at once (NOT_ALLOWED, RabbitMQ's text) what cannot be a token
 * refresh; otherwise resolves to the new expiry once the token is verified, or rejects with the
 * same refusal.
 */
export function refreshSecret(tokens: TokenVerifier | null, current: LoggedIn, secret: string, log: Logger): Promise<number | null> {
  const refusedUpdate = (why = ""): BrokerError => new BrokerError("notAllowed", `Secret update was refused for user '${current.user}'${why}`);
  if (current.permissions.user.isInternal !== false) return Promise.resolve(current.expiresAt);
  if (!isTokenLogin(tokens, secret)) throw refusedUpdate();
  return tokens.verify(secret).then(
    (login) => {
      if (login.user.name !== current.user) throw refusedUpdate(": the token names another user");
      current.permissions.replaceGrants(login.grants);
      return login.expiresAt;
    },
    (err: unknown) => {
      log.warn("secret update refused", { reason: err instanceof Error ? err.message : String(err) });
      throw refusedUpdate();
    },
  );
}
