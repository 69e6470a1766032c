/**
 * Verifies an OAuth 2.0 access token (a JWT) as RabbitMQ's OAuth 2.0 backend does: the signature
 * with a configured key (chosen by the header's `kid`, or the only key when there is one), `exp`
 * and `nbf`, and an `aud` that holds the resource server id. The result is a login: a user that
 * exists only for the token's life, its scope grants, and when it expires. jose does the JOSE work.
 *
 * Keys come from files and secrets given at start, and, with `jwksUrl` (RabbitMQ's
 * `auth_oauth2.jwks_url`), from the identity provider's JWKS endpoint: fetched when a token first
 * needs it, cached, and fetched again when a token names a key id the cache lacks (the provider
 * rotated its keys), at most once per REFETCH_COOLDOWN_MS. Configured keys win over fetched ones.
 */
import { createRemoteJWKSet, errors, jwtVerify, type FlattenedJWSInput, type JWTHeaderParameters } from "jose";
import type { KeyObject } from "node:crypto";
import type { User } from "../user.js";
import { ScopeGrants, scopesOf } from "./scope-grants.js";
import { hmacKey, loadKeyFile, type SigningKey } from "./signing-keys.js";

export interface OAuthSettings {
  readonly resourceServerId: string;
  /** "kid=file" entries: PEM public keys or JWKS files. */
  readonly keyFiles: readonly string[];
  /** "kid=secret" entries for HS256. */
  readonly hmacSecrets: readonly string[];
  /** The identity provider's JWKS endpoint (https, or http on a trusted network); null for none. */
  readonly jwksUrl?: string | null;
}

/** An unknown key id sends the broker to the JWKS endpoint again at most this often. */
const REFETCH_COOLDOWN_MS = 30_000;
/** A JWKS request that takes longer fails (the token is refused; the next one tries again). */
const JWKS_TIMEOUT_MS = 5_000;

type RemoteKeys = ReturnType<typeof createRemoteJWKSet>;

export interface TokenLogin {
  readonly user: User;
  readonly grants: ScopeGrants;
  /** Milliseconds since the epoch; null when the token has no `exp`. */
  readonly expiresAt: number | null;
}

/** Why a token was refused; the text goes to the log, never to the client. */
export class TokenRefused extends Error {}

export class TokenVerifier {
  private readonly keys = new Map<string, SigningKey>();
  private readonly remote: RemoteKeys | null;

  constructor(readonly settings: OAuthSettings) {
    for (const entry of settings.keyFiles) for (const k of loadKeyFile(entry)) this.keys.set(k.kid, k);
    for (const entry of settings.hmacSecrets) {
      const k = hmacKey(entry);
      this.keys.set(k.kid, k);
    }
    const url = settings.jwksUrl ?? null;
    if (url !== null && !/^https?:\/\//.test(url)) throw new Error(`OAuth 2.0 JWKS URL '${url}' must be an http(s) URL`);
    this.remote = url === null ? null : createRemoteJWKSet(new URL(url), { cooldownDuration: REFETCH_COOLDOWN_MS, timeoutDuration: JWKS_TIMEOUT_MS });
    if (this.keys.size === 0 && this.remote === null) throw new Error("OAuth 2.0 is configured without any signing key or JWKS URL");
  }

  /** A cheap test before any verification: three base64url parts, as every JWS compact token. */
  static looksLikeToken(secret: string): boolean {
    return /^[\w-]+\.[\w-]+\.[\w-]+$/.test(secret);
  }

  private keyFor(header: JWTHeaderParameters, token: FlattenedJWSInput): ReturnType<RemoteKeys> | KeyObject {
    const k = header.kid !== undefined ? this.keys.get(header.kid) : this.keys.size === 1 && this.remote === null ? [...this.keys.values()][0] : undefined;
    if (!k && this.remote !== null) return this.remote(header, token);
    if (!k) throw new TokenRefused(`no signing key '${header.kid ?? "(none)"}'`);
    if (k.alg !== header.alg) throw new TokenRefused(`key '${k.kid}' is for ${k.alg}, token is ${header.alg}`);
    return k.key;
  }

  async verify(token: string): Promise<TokenLogin> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, (header, t) => this.keyFor(header, t), {
        audience: this.settings.resourceServerId,
        algorithms: ["RS256", "ES256", "HS256"],
      }));
    } catch (err) {
      if (err instanceof TokenRefused) throw err;
      const detail = err instanceof errors.JOSEError ? `${err.code}: ${err.message}` : String(err);
      throw new TokenRefused(detail);
    }
    const name = [payload.sub, payload["client_id"], payload["user_name"]].find((v): v is string => typeof v === "string") ?? "oauth2-user";
    const grants = new ScopeGrants(this.settings.resourceServerId, scopesOf(payload["scope"]), { username: name, claims: payload });
    const user: User = { name, passwordHash: "", hashingAlgorithm: "rabbit_password_hashing_sha256", tags: grants.tags, limits: {}, isInternal: false };
    return { user, grants, expiresAt: typeof payload.exp === "number" ? payload.exp * 1000 : null };
  }
}
