/**
 * Password hashing exactly as RabbitMQ's internal backend does it, so that definitions exported
 * from RabbitMQ import here and their users log in:
 *   stored = salt(4 random bytes) ++ H(salt ++ utf8(password)); password_hash = base64(stored)
 * with H = SHA-256 (rabbit_password_hashing_sha256, the default), SHA-512 or MD5 (legacy imports).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const HASHING_ALGORITHMS = {
  rabbit_password_hashing_sha256: "sha256",
  rabbit_password_hashing_sha512: "sha512",
  rabbit_password_hashing_md5: "md5",
} as const;

export type HashingAlgorithm = keyof typeof HASHING_ALGORITHMS;
export const DEFAULT_HASHING_ALGORITHM: HashingAlgorithm = "rabbit_password_hashing_sha256";

export function isHashingAlgorithm(name: string): name is HashingAlgorithm {
  return Object.hasOwn(HASHING_ALGORITHMS, name);
}

function digest(algorithm: HashingAlgorithm, salt: Buffer, password: string): Buffer {
  return createHash(HASHING_ALGORITHMS[algorithm]).update(salt).update(password, "utf8").digest();
}

/** A new salted hash of `password`, base64 as RabbitMQ shows it in `password_hash`. */
export function hashPassword(password: string, algorithm: HashingAlgorithm = DEFAULT_HASHING_ALGORITHM): string {
  const salt = randomBytes(4);
  return Buffer.concat([salt, digest(algorithm, salt, password)]).toString("base64");
}

/** Digest length per algorithm: a stored hash is 4 salt bytes plus one digest. */
const DIGEST_BYTES: Record<HashingAlgorithm, number> = {
  rabbit_password_hashing_sha256: 32,
  rabbit_password_hashing_sha512: 64,
  rabbit_password_hashing_md5: 16,
};

/** True when `passwordHash` is valid base64 of the right length for `algorithm`. */
export function isValidPasswordHash(passwordHash: string, algorithm: HashingAlgorithm): boolean {
  if (passwordHash === "") return true; // RabbitMQ: an empty hash means "no password login"
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(passwordHash)) return false;
  return Buffer.from(passwordHash, "base64").length === 4 + DIGEST_BYTES[algorithm];
}

/**
 * Constant-time check of a cleartext password against a stored hash. A blank password is always
 * refused, as RabbitMQ's internal backend refuses it.
 */
export function verifyPassword(password: string, passwordHash: string, algorithm: HashingAlgorithm): boolean {
  if (password === "" || passwordHash === "") return false;
  const stored = Buffer.from(passwordHash, "base64");
  if (stored.length !== 4 + DIGEST_BYTES[algorithm]) return false;
  const actual = digest(algorithm, stored.subarray(0, 4), password);
  return timingSafeEqual(actual, stored.subarray(4));
}
