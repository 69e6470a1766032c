/**
 * Mutual authentication with the cluster's shared secret, used by the replication port
 * (cluster/replication-*.ts) and the inter-node link (node-link/link-handshake.ts, where the
 * connecting node plays the "follower" role and the leading node the "leader" role).
 *
 * For a replication connection (docs/CLUSTERING.md, "Replication"): the
 * replication port hands out every persistent message and accepts a leader's bytes as the truth,
 * so each end proves it holds the cluster's secret before any data flows:
 *   follower → leader   Hello     name | follower nonce
 *   leader → follower   Challenge leader nonce | HMAC(secret, "leader", both nonces, name)
 *   follower → leader   Proof     HMAC(secret, "follower", both nonces, name)
 * Fresh nonces on both sides make a recorded exchange useless to replay, and the role label keeps
 * one side's proof from being reflected back as the other's. The secret is 32 random bytes that
 * the cluster's first node creates in etcd (`secret` under the cluster's prefix): whoever may read
 * etcd's keys may already decide who leads, so etcd's own access control guards both.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const NONCE_BYTES = 32;
const PROOF_BYTES = 32;

/** A frame larger than this before authentication ends the connection (nothing is buffered for strangers). */
export const MAX_UNAUTHENTICATED_FRAME = 1024;

export function newNonce(): Buffer {
  return randomBytes(NONCE_BYTES);
}

export function newSecret(): Buffer {
  return randomBytes(32);
}

function proof(secret: Buffer, role: "leader" | "follower", followerNonce: Buffer, leaderNonce: Buffer, follower: string): Buffer {
  return createHmac("sha256", secret).update(role).update("\0").update(followerNonce).update(leaderNonce).update(follower, "utf8").digest();
}

export const leaderProof = (secret: Buffer, followerNonce: Buffer, leaderNonce: Buffer, follower: string): Buffer =>
  proof(secret, "leader", followerNonce, leaderNonce, follower);

export const followerProof = (secret: Buffer, followerNonce: Buffer, leaderNonce: Buffer, follower: string): Buffer =>
  proof(secret, "follower", followerNonce, leaderNonce, follower);

/** Constant-time comparison; a proof of the wrong length is simply wrong. */
export function proofMatches(got: Buffer, expected: Buffer): boolean {
  return got.length === PROOF_BYTES && expected.length === PROOF_BYTES && timingSafeEqual(got, expected);
}
