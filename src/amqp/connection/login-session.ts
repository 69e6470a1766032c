/**
 * A connection's login over its life: the handshake's authenticate step (counted in the
 * broker's auth_attempts / succeeded / failed), the expiry of a token login, which closes the
 * connection, and connection.update-secret, which may bring a fresh token. The rules themselves
 * are in login.ts.
 */
import type { Broker } from "../../broker/index.js";
import { BrokerError } from "../../errors/broker-error.js";
import type { Logger } from "../../logging/logger.js";
import { encodeConnectionUpdateSecretOk } from "../codec/generated.js";
import type { OutputBuffer } from "../codec/output-buffer.js";
import type { AmqpSettings } from "./amqp-settings.js";
import { TokenExpiry } from "../../auth/oauth/token-expiry.js";
import { logIn, refreshSecret, type LoggedIn, type LoginAttempt, type LoginSettings } from "./login.js";

/** What the login needs of its connection. */
export interface LoginHost {
  readonly user: string;
  /** False once the connection is closing or closed. */
  readonly isOpen: boolean;
  readonly output: { readonly out: OutputBuffer; flush(): void };
  readonly log: Logger;
  connectionError(err: unknown, classId: number, methodId: number): void;
}

export class LoginSession {
  /** Null until authenticated. */
  private current: LoggedIn | null = null;
  private readonly expiry = new TokenExpiry(() => {
    this.host.log.info("closing connection: OAuth 2.0 token expired", { user: this.host.user });
    this.host.connectionError(new BrokerError("accessRefused", "credential expired"), 0, 0);
  });
  private readonly settings: LoginSettings;

  constructor(
    private readonly broker: Broker,
    settings: AmqpSettings,
    private readonly host: LoginHost,
  ) {
    this.settings = { tokens: settings.tokens ?? null, throttle: settings.loginThrottle ?? null, loopbackUsers: settings.loopbackUsers };
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
      result = logIn(this.broker, this.settings, this.host.log, attempt);
    } catch (err) {
      return failed(err);
    }
    return result instanceof Promise ? result.then(succeeded, failed) : succeeded(result);
  }

  /**
   * connection.update-secret: refuses at once (NOT_ALLOWED, thrown) what cannot be a refresh;
   * otherwise answers update-secret-ok once the new token is verified, or closes the connection.
   */
  updateSecret(secret: string): void {
    const host = this.host;
    if (this.current === null) throw new BrokerError("notAllowed", `Secret update was refused for user '${host.user}'`);
    refreshSecret(this.settings.tokens, this.current, secret, host.log).then(
      (expiresAt) => {
        if (!host.isOpen) return;
        this.expiry.arm(expiresAt);
        encodeConnectionUpdateSecretOk(host.output.out, 0, {});
        host.output.flush();
      },
      (err: unknown) => host.connectionError(err, 0, 0),
    );
  }

  /** The connection is gone: no expiry fires any more. */
  close(): void {
    this.expiry.clear();
  }
}
