/**
 * The keys OAuth 2.0 tokens are verified with, each under a key id (`kid`), loaded once at
 * start: PEM public keys (RSA → RS256, EC → ES256), JWKS files (each key keeps its own kid),
 * and HS256 shared secrets. Key parsing is node:crypto's; nothing here does cryptography.
 */
import { createPublicKey, createSecretKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";

export interface SigningKey {
  readonly kid: string;
  readonly alg: "RS256" | "ES256" | "HS256";
  readonly key: KeyObject;
}

/** Splits "kid=value"; the kid is required so a token's header can name its key. */
function kidAndValue(entry: string, what: string): [string, string] {
  const eq = entry.indexOf("=");
  if (eq <= 0) throw new Error(`${what} '${entry}' must be written <key id>=<value>`);
  return [entry.slice(0, eq), entry.slice(eq + 1)];
}

function algOf(key: KeyObject, where: string): "RS256" | "ES256" {
  if (key.asymmetricKeyType === "rsa") return "RS256";
  if (key.asymmetricKeyType === "ec") return "ES256";
  throw new Error(`${where}: only RSA (RS256) and EC (ES256) public keys are supported`);
}

/** `kid=file`: a PEM public key, or a JWKS file (JSON with "keys"; then the entry's kid is a label only). */
export function loadKeyFile(entry: string): SigningKey[] {
  const [kid, file] = kidAndValue(entry, "signing key");
  const text = readFileSync(file, "utf8");
  if (text.trimStart().startsWith("{")) {
    const jwks = JSON.parse(text) as { keys?: Array<Record<string, unknown>> };
    if (!Array.isArray(jwks.keys)) throw new Error(`${file}: a JWKS file needs a "keys" list`);
    return jwks.keys.map((jwk, i) => {
      const key = createPublicKey({ key: jwk as never, format: "jwk" });
      return { kid: typeof jwk["kid"] === "string" ? jwk["kid"] : `${kid}-${i}`, alg: algOf(key, file), key };
    });
  }
  const key = createPublicKey(text);
  return [{ kid, alg: algOf(key, file), key }];
}

/** `kid=secret`: an HS256 shared secret. */
export function hmacKey(entry: string): SigningKey {
  const [kid, secret] = kidAndValue(entry, "HS256 secret");
  if (secret === "") throw new Error(`HS256 secret '${kid}' is empty`);
  return { kid, alg: "HS256", key: createSecretKey(Buffer.from(secret, "utf8")) };
}
