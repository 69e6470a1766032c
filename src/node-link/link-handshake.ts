/**
 * Mutual authentication of an inter-node link with the cluster's shared secret, reusing the
 * replication port's proofs (cluster/replication-auth.ts, see there why each piece is needed):
 *   connecting node → leader   HELLO     u16 name length | name | nonce
 *   leader → connecting node   CHALLENGE nonce | HMAC(secret, "leader", both nonces, name)
 *   connecting node → leader   PROOF     HMAC(secret, "follower", both nonces, name)
 *   leader → connecting node   READY     u32 credit in messages | f64 credit in bytes | u16 length | leader's node name
 * Nothing else is read before the proof checks out, and no frame larger than
 * MAX_UNAUTHENTICATED_FRAME is accepted until then.
 */
import { followerProof, leaderProof, newNonce, NONCE_BYTES, proofMatches } from "../auth/shared-secret-proof.js";
import { CHALLENGE, FRAME_HEAD, HELLO, PROOF, READY, frame, frameWithStrings, readString, writeString } from "./link-frames.js";

/** The connecting side's HELLO, and the nonce it must remember to check the CHALLENGE. */
export function helloFrame(name: string): { frame: Buffer; nonce: Buffer } {
  const nonce = newNonce();
  const n = Buffer.byteLength(name);
  const out = frame(HELLO, 2 + n + NONCE_BYTES);
  writeString(out, FRAME_HEAD, name);
  nonce.copy(out, FRAME_HEAD + 2 + n);
  return { frame: out, nonce };
}

/** The leader's answer to a HELLO frame: its CHALLENGE and what it needs to check the PROOF; null for a malformed HELLO. */
export function challenge(secret: Buffer, f: Buffer): { frame: Buffer; check: (proofFrame: Buffer) => boolean; peer: string } | null {
  if (f[4] !== HELLO || f.length < FRAME_HEAD + 2 + NONCE_BYTES) return null;
  const [peer, at] = readString(f, FRAME_HEAD);
  const theirs = f.subarray(at, at + NONCE_BYTES);
  if (theirs.length !== NONCE_BYTES) return null;
  const ours = newNonce();
  const out = frame(CHALLENGE, 2 * NONCE_BYTES);
  ours.copy(out, FRAME_HEAD);
  leaderProof(secret, theirs, ours, peer).copy(out, FRAME_HEAD + NONCE_BYTES);
  const expected = followerProof(secret, theirs, ours, peer);
  return { frame: out, peer, check: (p) => p[4] === PROOF && proofMatches(p.subarray(FRAME_HEAD), expected) };
}

/** The connecting side checks the CHALLENGE; its PROOF, or null when the leader does not know the secret. */
export function answer(secret: Buffer, name: string, nonce: Buffer, f: Buffer): Buffer | null {
  if (f[4] !== CHALLENGE || f.length !== FRAME_HEAD + 2 * NONCE_BYTES) return null;
  const theirs = f.subarray(FRAME_HEAD, FRAME_HEAD + NONCE_BYTES);
  if (!proofMatches(f.subarray(FRAME_HEAD + NONCE_BYTES), leaderProof(secret, nonce, theirs, name))) return null;
  const out = frame(PROOF, 32);
  followerProof(secret, nonce, theirs, name).copy(out, FRAME_HEAD);
  return out;
}

export function readyFrame(creditMessages: number, creditBytes: number, node: string): Buffer {
  const { buf } = frameWithStrings(READY, 12, [node]);
  buf.writeUInt32LE(creditMessages, FRAME_HEAD);
  buf.writeDoubleLE(creditBytes, FRAME_HEAD + 4);
  return buf;
}

export function readReady(f: Buffer): { creditMessages: number; creditBytes: number; node: string } | null {
  if (f[4] !== READY) return null;
  return { creditMessages: f.readUInt32LE(FRAME_HEAD), creditBytes: f.readDoubleLE(FRAME_HEAD + 4), node: readString(f, FRAME_HEAD + 12)[0] };
}
