/**
 * A login by OAuth 2.0 token, for both listeners: the verified token becomes a user that exists
 * only for this login and a PermissionChecker whose grants are the token's scopes (the check
 * logic stays in PermissionChecker). Used when OAuth 2.0 is configured and a secret looks like a
 * JWT; everything else goes to the internal user database.
 */
import { PermissionChecker } from "../permission-check.js";
import type { UserRegistry } from "../user-registry.js";
import type { User } from "../user.js";
import { TokenVerifier, type TokenLogin } from "./token-verifier.js";

export interface TokenSession {
  readonly user: User;
  readonly permissions: PermissionChecker;
  readonly expiresAt: number | null;
}

export function sessionOf(registry: UserRegistry, login: TokenLogin): TokenSession {
  return { user: login.user, permissions: new PermissionChecker(registry, login.user, login.grants), expiresAt: login.expiresAt };
}

/** True when this secret should be verified as a token rather than checked as a password. */
export function isTokenLogin(tokens: TokenVerifier | null, secret: string): tokens is TokenVerifier {
  return tokens !== null && TokenVerifier.looksLikeToken(secret);
}
