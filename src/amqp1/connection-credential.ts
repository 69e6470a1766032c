/**
 * An AMQP 1.0 connection's credential over its life, as RabbitMQ 4 keeps it (rabbit_amqp_reader:
 * set_credential, credential_expired): a connection that logged in with an OAuth 2.0 token is
 * closed with amqp:unauthorized-access "credential expired" when the token expires, unless the
 * client refreshed it first with `PUT /auth/tokens` on the /management node (RabbitMQ 4.1).
 *
 * A refresh is answered 204 (RabbitMQ 4 answers 204 whatever the token): a valid token naming
 * the same user replaces the grants every session and link checks with (the one
 * PermissionChecker of the connection, so they apply from the next operation; a session with a
 * receiver whose queue is no longer readable ends at once, as RabbitMQ 4) and the expiry;
 * anything else closes the connection, after the 204, with amqp:unauthorized-access and RabbitMQ
 * 4's text. Coney answers once the token is checked (RabbitMQ 4 answers before its connection
 * process has checked it), so a client's next request after the 204 runs with the new grants. A password login has nothing to refresh: the token is ignored, as
 * RabbitMQ 4 refreshes only backends whose credential expires.
 */
import type { PermissionChecker } from "../auth/permission-check.js";
import { TokenExpiry } from "../auth/oauth/token-expiry.js";
import { isTokenLogin } from "../auth/oauth/token-login.js";
import type { TokenVerifier } from "../auth/oauth/token-verifier.js";
import type { Logger } from "../logging/logger.js";
import { Amqp1Error, CONDITION } from "./amqp1-errors.js";

/** What the credential needs of its connection. */
export interface CredentialHost {
  readonly user: string;
  readonly vhost: string;
  readonly permissions: PermissionChecker | null;
  readonly settings: { readonly tokens: TokenVerifier | null };
  readonly log: Logger;
  readonly sessions: ReadonlyMap<number, { recheckReads(): void }>;
  /** Closes the connection with the error. */
  fail(err: unknown): void;
}

// RabbitMQ 4's close texts (its reader formats the refusal with ~p, hence the Erlang terms).
const INVALID = 'credential update failed: {refused,"Authentication using an OAuth 2/JWT token failed: provided token is invalid",[]}';
const OTHER_USER = 'credential update failed: {refused,"Not allowed to change username on refreshed token",[]}';
const vhostRefused = (vhost: string, user: string): string => `access to vhost ${vhost} failed for new credential: {amqp_error,not_allowed,"access to vhost '${vhost}' refused for user '${user}'",none}`;

export class ConnectionCredential {
  private readonly expiry = new TokenExpiry(() => {
    this.host.log.info("closing AMQP 1.0 connection: OAuth 2.0 token expired", { user: this.host.user });
    this.host.fail(new Amqp1Error(CONDITION.unauthorizedAccess, "credential expired"));
  });
  /** Closed: a refresh that completes afterwards changes nothing. */
  private closed = false;

  constructor(private readonly host: CredentialHost) {}

  /** The login's expiry (ms since the epoch; null: never). */
  arm(expiresAt: number | null): void {
    this.expiry.arm(expiresAt);
  }

  /**
   * PUT /auth/tokens. Resolves once the token is checked, so the 204 goes out when the new grants
   * already apply (the client's next request uses them); a refused token still gets its 204 and
   * the connection closes right after it (the close is deferred past the answer), as RabbitMQ 4.
   */
  refresh(token: string): Promise<void> {
    const h = this.host;
    const permissions = h.permissions;
    if (permissions === null || permissions.user.isInternal !== false) return Promise.resolve();
    const tokens = h.settings.tokens;
    const refuse = (text: string, reason: string): void => {
      h.log.warn("AMQP 1.0 credential update refused", { user: h.user, reason });
      setImmediate(() => h.fail(new Amqp1Error(CONDITION.unauthorizedAccess, text)));
    };
    if (!isTokenLogin(tokens, token)) {
      refuse(INVALID, "not a token");
      return Promise.resolve();
    }
    return tokens.verify(token).then(
      (login) => {
        if (this.closed) return;
        if (login.user.name !== h.user) return refuse(OTHER_USER, `the token names '${login.user.name}'`);
        permissions.replaceGrants(login.grants);
        if (!permissions.hasVhostAccess(h.vhost)) return refuse(vhostRefused(h.vhost, h.user), "no access to the connection's vhost");
        this.expiry.arm(login.expiresAt);
        h.log.info("AMQP 1.0 credential updated", { user: h.user });
        // Publishes and attaches check the grants as they come; a receiver already attached is checked now.
        for (const session of h.sessions.values()) session.recheckReads();
      },
      (err: unknown) => {
        if (!this.closed) refuse(INVALID, err instanceof Error ? err.message : String(err));
      },
    );
  }

  /** The connection is gone: no expiry fires and no refresh applies any more. */
  close(): void {
    this.closed = true;
    this.expiry.clear();
  }
}
