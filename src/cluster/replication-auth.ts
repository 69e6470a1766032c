/**
 * Mutual authentication of a replication connection (docs/CLUSTERING.md, "Replication"). The
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
import { withTimeout, type ClusterKeys, type EtcdSession } from "./etcd-session.js";

export const NONCE_BYTES = 32;
const PROOF_BYTES = 32;

/** A frame larger than this before authentication ends the connection (nothing is buffered for strangers). */
export const MAX_UNAUTHENTICATED_FRAME = 1024;

export function newNonce(): Buffer {
  return randomBytes(NONCE_BYTES);
}

/** The cluster's replication secret: the first node to start creates it (one transaction), every node reads it. */
export async function clusterSecret(session: EtcdSession, keys: ClusterKeys): Promise<Buffer> {
  const c = session.client;
  await withTimeout(c.if(keys.secret, "Create", "==", 0).then(c.put(keys.secret).value(newSecret().toString("base64"))).commit(), session.callTimeout, "create the cluster secret");
  const value = await withTimeout(c.get(keys.secret).string(), session.callTimeout, "read the cluster secret");
  if (!value) throw new Error("etcd holds no cluster secret");
  return Buffer.from(value, "base64");
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
