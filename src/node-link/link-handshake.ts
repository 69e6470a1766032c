/**
 * Mutual authentication of an inter-node link with the cluster's shared secret, reusing the
 * replication port's proofs (cluster/replication-auth.ts, see there why each piece is needed):
 *   connecting node → leader   HELLO     u16 name length | name | nonce | [u8 features]
 *   leader → connecting node   CHALLENGE nonce | HMAC(secret, "leader", both nonces, name)
 *   connecting node → leader   PROOF     HMAC(secret, "follower", both nonces, name)
 *   leader → connecting node   READY     u32 credit in messages | f64 credit in bytes | u16 length | leader's node name | [u8 features]
 * Nothing else is read before the proof checks out, and no frame larger than
 * MAX_UNAUTHENTICATED_FRAME is accepted until then.
 *
 * The trailing features byte (issue 42, fourth pass) is what each end offers; a node of an
 * earlier version neither sends it nor reads past what it knows, so a feature is used only when
 * both ends named it (absent = none): links keep working across a rolling upgrade.
 */
import { followerProof, leaderProof, newNonce, NONCE_BYTES, proofMatches } from "../auth/shared-secret-proof.js";
import { CHALLENGE, FRAME_HEAD, HELLO, PROOF, READY, frame, readString, writeString } from "./link-frames.js";

/**
 * Feature bit: in HELLO, the connecting node keeps each message it forwards until STORED covers
 * it and reads DELIVER_OWN; in READY, the leader will send DELIVER_OWN (link-frames.ts).
 */
export const FEATURE_DELIVER_OWN = 1;
/** Feature bit: the leader answers RPC_INFO_MANY (link-rpc.ts); without it each queue's counts are one INFO. */
export const FEATURE_INFO_MANY = 2;
/** Feature bit: the leader reads PUBLISH_RUN (publish-runs.ts); without it every forwarded message is a PUBLISH. */
export const FEATURE_PUBLISH_RUN = 4;
/** Feature bit: in HELLO, the connecting node reads DELIVER_OWN_RUN (own-runs.ts); in READY, the leader sends it. */
export const FEATURE_OWN_RUN = 8;
/** Feature bit: the leader serves native stream subscriptions from its log (stream-read-frames.ts); without it a Subscribe there answers stream_not_available. */
export const FEATURE_STREAM_READ = 16;
/** Feature bit: the leader appends native stream publishers' batches (stream-publish-frames.ts); without it a DeclarePublisher there answers stream_not_available. */
export const FEATURE_STREAM_PUBLISH = 32;
/** The features this version offers. */
export const OUR_FEATURES = FEATURE_DELIVER_OWN | FEATURE_INFO_MANY | FEATURE_PUBLISH_RUN | FEATURE_OWN_RUN | FEATURE_STREAM_READ | FEATURE_STREAM_PUBLISH;

/** A trailing features byte at `at` of `f`, or none (0) from a node that does not send it. */
const featuresAt = (f: Buffer, at: number): number => (at < f.length ? f[at]! : 0);

/** The connecting side's HELLO, and the nonce it must remember to check the CHALLENGE. */
export function helloFrame(name: string, features: number = OUR_FEATURES): { frame: Buffer; nonce: Buffer } {
  const nonce = newNonce();
  const n = Buffer.byteLength(name);
  const out = frame(HELLO, 2 + n + NONCE_BYTES + 1);
  writeString(out, FRAME_HEAD, name);
  nonce.copy(out, FRAME_HEAD + 2 + n);
  out[FRAME_HEAD + 2 + n + NONCE_BYTES] = features;
  return { frame: out, nonce };
}

/** The leader's answer to a HELLO frame: its CHALLENGE, what it needs to check the PROOF and the features the peer offered; null for a malformed HELLO. */
export function challenge(secret: Buffer, f: Buffer): { frame: Buffer; check: (proofFrame: Buffer) => boolean; peer: string; features: number } | null {
  if (f[4] !== HELLO || f.length < FRAME_HEAD + 2 + NONCE_BYTES) return null;
  const [peer, at] = readString(f, FRAME_HEAD);
  const theirs = f.subarray(at, at + NONCE_BYTES);
  if (theirs.length !== NONCE_BYTES) return null;
  const ours = newNonce();
  const out = frame(CHALLENGE, 2 * NONCE_BYTES);
  ours.copy(out, FRAME_HEAD);
  leaderProof(secret, theirs, ours, peer).copy(out, FRAME_HEAD + NONCE_BYTES);
  const expected = followerProof(secret, theirs, ours, peer);
  return { frame: out, peer, features: featuresAt(f, at + NONCE_BYTES), check: (p) => p[4] === PROOF && proofMatches(p.subarray(FRAME_HEAD), expected) };
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

/** `features`: those both ends use (the peer's HELLO offer and this leader's). */
export function readyFrame(creditMessages: number, creditBytes: number, node: string, features = 0): Buffer {
  const out = frame(READY, 12 + 2 + Buffer.byteLength(node) + 1);
  writeString(out, FRAME_HEAD + 12, node);
  out.writeUInt32LE(creditMessages, FRAME_HEAD);
  out.writeDoubleLE(creditBytes, FRAME_HEAD + 4);
  out[out.length - 1] = features;
  return out;
}

export function readReady(f: Buffer): { creditMessages: number; creditBytes: number; node: string; features: number } | null {
  if (f[4] !== READY) return null;
  const [node, at] = readString(f, FRAME_HEAD + 12);
  return { creditMessages: f.readUInt32LE(FRAME_HEAD), creditBytes: f.readDoubleLE(FRAME_HEAD + 4), node, features: featuresAt(f, at) };
}
