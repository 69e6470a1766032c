/**
 * A connection's login over its life: the handshake's authenticate step (counted in the
 * broker's auth_attempts / succeeded / failed), the expiry of a token login, and
 * connection.update-secret, which may bring a fresh token. The rules themselves are in login.ts.
 */
import type { Broker } from "../../broker/broker.js";
import type { Logger } from "../../logging/logger.js";
import { BrokerError } from "../../errors/broker-error.js";
import { logIn, refreshSecret, TokenExpiry, type LoggedIn, type LoginAttempt, type LoginSettings } from "./login.js";

export class LoginSession {
  /** Null until authenticated. */
  private current: LoggedIn | null = null;
  private readonly expiry: TokenExpiry;

  /** `expired` runs when a token login's token expires without a refresh (the connection closes). */
  constructor(
    private readonly broker: Broker,
    private readonly settings: LoginSettings,
    private readonly log: Logger,
    expired: () => void,
  ) {
    this.expiry = new TokenExpiry(expired);
  }

  /** The handshake's authenticate step; `loggedIn` runs on success before the answer is returned. */
  authenticate<T>(attempt: LoginAttempt, loggedIn: (l: LoggedIn) => T): T | Promise<T> {
    const stats = this.broker.stats;
    stats.authAttempts++;
    const failed = (err: unknown): never => {
      stats.authFailed++;
      throw err;
    };
    const succeeded = (l: LoggedIn): T => {
      stats.authSucceeded++;
      this.current = l;
      this.expiry.arm(l.expiresAt);
      return loggedIn(l);
    };
    let result: LoggedIn | Promise<LoggedIn>;
    try {
      result = logIn(this.broker, this.settings, this.log, attempt);
    } catch (err) {
      return failed(err);
    }
    return result instanceof Promise ? result.then(succeeded, failed) : succeeded(result);
  }

  /**
   * connection.update-secret: refuses at once (NOT_ALLOWED) what cannot be a refresh; otherwise
   * resolves once the new token is verified and its expiry armed (`stillOpen` is asked first).
   */
  updateSecret(user: string, secret: string, stillOpen: () => boolean): Promise<boolean> {
    if (this.current === null) throw new BrokerError("notAllowed", `Secret update was refused for user '${user}'`);
    return refreshSecret(this.settings.tokens, this.current, secret, this.log).then((expiresAt) => {
      if (!stillOpen()) return false;
      this.expiry.arm(expiresAt);
      return true;
    });
  }

  /** The connection is gone: no expiry fires any more. */
  close(): void {
    this.expiry.clear();
  }
}
