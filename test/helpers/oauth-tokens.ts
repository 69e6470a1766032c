/**
 * Test OAuth 2.0 setup: an HS256 secret, an RSA key as a PEM file and an EC key in a JWKS file,
 * written to a temp dir, and a signer for tokens with chosen claims, key and lifetime.
 */
import { generateKeyPairSync, createSecretKey, type KeyObject } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT } from "jose";

export const RESOURCE_SERVER = "rabbitmq";
const HS_SECRET = "a-test-secret-that-is-long-enough-for-hs256";

export interface OAuthFixture {
  /** Where the key files are; remove it when done. */
  readonly dir: string;
  readonly config: { oauthResourceServerId: string; oauthKeyFiles: string[]; oauthHmacSecrets: string[] };
  sign(opts: TokenOptions): Promise<string>;
}

export interface TokenOptions {
  scope: string[];
  sub?: string;
  /** Seconds from now; negative for an expired token. */
  expiresIn?: number;
  aud?: string;
  key?: "hs" | "rsa" | "ec" | "rsa-other";
  /** Seconds from now before which the token is not valid (`nbf`). */
  notBefore?: number;
}

export function oauthFixture(): OAuthFixture {
  const dir = mkdtempSync(join(tmpdir(), "coney-oauth-"));
  const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const other = generateKeyPairSync("rsa", { modulusLength: 2048 });
  writeFileSync(join(dir, "rsa.pem"), rsa.publicKey.export({ type: "spki", format: "pem" }));
  writeFileSync(join(dir, "jwks.json"), JSON.stringify({ keys: [{ ...ec.publicKey.export({ format: "jwk" }), kid: "ec-1", use: "sig" }] }));
  const keys: Record<NonNullable<TokenOptions["key"]>, { kid: string; alg: string; key: KeyObject }> = {
    hs: { kid: "hs-1", alg: "HS256", key: createSecretKey(Buffer.from(HS_SECRET)) },
    rsa: { kid: "rsa-1", alg: "RS256", key: rsa.privateKey },
    ec: { kid: "ec-1", alg: "ES256", key: ec.privateKey },
    // Signed by a key the broker does not have, under a kid it does have.
    "rsa-other": { kid: "rsa-1", alg: "RS256", key: other.privateKey },
  };
  return {
    dir,
    config: {
      oauthResourceServerId: RESOURCE_SERVER,
      oauthKeyFiles: [`rsa-1=${join(dir, "rsa.pem")}`, `jwks=${join(dir, "jwks.json")}`],
      oauthHmacSecrets: [`hs-1=${HS_SECRET}`],
    },
    sign: (o) => {
      const k = keys[o.key ?? "hs"];
      const now = Math.floor(Date.now() / 1000);
      const jwt = new SignJWT({ scope: o.scope.join(" ") });
      if (o.notBefore !== undefined) jwt.setNotBefore(now + o.notBefore);
      return jwt
        .setProtectedHeader({ alg: k.alg, kid: k.kid })
        .setSubject(o.sub ?? "token-user")
        .setAudience(o.aud ?? RESOURCE_SERVER)
        .setIssuedAt(now)
        .setExpirationTime(now + (o.expiresIn ?? 3600))
        .sign(k.key);
    },
  };
}
