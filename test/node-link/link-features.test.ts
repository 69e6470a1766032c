// The link handshake's features byte (src/node-link/link-handshake.ts): each end names what it
// offers after the fields an earlier version knows, so a node from before the byte neither sends
// it (read as none) nor is disturbed by it (its readers stop before it): HELLO and READY as an
// earlier node builds them are built here by hand, byte for byte as that version did.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { NONCE_BYTES } from "../../src/auth/shared-secret-proof.js";
import { FRAME_HEAD, HELLO, READY, frame, writeString } from "../../src/node-link/link-frames.js";
import { FEATURE_DELIVER_OWN, OUR_FEATURES, challenge, helloFrame, readReady, readyFrame } from "../../src/node-link/link-handshake.js";

/** HELLO as a node without the features byte sends it: u16 name length | name | nonce. */
function earlierHello(name: string): Buffer {
  const n = Buffer.byteLength(name);
  const f = frame(HELLO, 2 + n + NONCE_BYTES);
  writeString(f, FRAME_HEAD, name);
  randomBytes(NONCE_BYTES).copy(f, FRAME_HEAD + 2 + n);
  return f;
}

/** READY as a leader without the features byte sends it. */
function earlierReady(node: string): Buffer {
  const f = frame(READY, 12 + 2 + Buffer.byteLength(node));
  f.writeUInt32LE(2000, FRAME_HEAD);
  f.writeDoubleLE(8 * 1024 * 1024, FRAME_HEAD + 4);
  writeString(f, FRAME_HEAD + 12, node);
  return f;
}

describe("the link's features byte", () => {
  const secret = randomBytes(32);

  it("offers DELIVER_OWN in HELLO; the leader reads the peer's name and its offer", () => {
    assert.equal(OUR_FEATURES & FEATURE_DELIVER_OWN, FEATURE_DELIVER_OWN);
    const c = challenge(secret, helloFrame("rabbit@a").frame);
    assert.ok(c !== null);
    assert.equal(c.peer, "rabbit@a");
    assert.equal(c.features, OUR_FEATURES);
    assert.equal(challenge(secret, helloFrame("rabbit@a", 0).frame)?.features, 0);
  });

  it("reads an earlier node's HELLO as offering nothing", () => {
    const c = challenge(secret, earlierHello("rabbit@old"));
    assert.ok(c !== null);
    assert.equal(c.peer, "rabbit@old");
    assert.equal(c.features, 0);
  });

  it("READY carries the features in use after the node name; an earlier leader's READY means none", () => {
    const ready = readReady(readyFrame(2000, 8 * 1024 * 1024, "rabbit@b", FEATURE_DELIVER_OWN));
    assert.deepEqual(ready, { creditMessages: 2000, creditBytes: 8 * 1024 * 1024, node: "rabbit@b", features: FEATURE_DELIVER_OWN });
    assert.deepEqual(readReady(earlierReady("rabbit@b")), { creditMessages: 2000, creditBytes: 8 * 1024 * 1024, node: "rabbit@b", features: 0 });
  });

  it("keeps what an earlier node reads unchanged: its fields come first, the byte is after them", () => {
    // An earlier leader reads HELLO's name and the nonce that follows it, and ignores the rest.
    const ours = helloFrame("rabbit@a", FEATURE_DELIVER_OWN).frame;
    const n = Buffer.byteLength("rabbit@a");
    assert.equal(ours.length, FRAME_HEAD + 2 + n + NONCE_BYTES + 1);
    assert.equal(ours.readUInt32LE(0), ours.length - 4, "the frame's length counts the byte");
    assert.equal(ours[ours.length - 1], FEATURE_DELIVER_OWN);
    // An earlier connecting node reads READY's credits and node name; the byte follows the name.
    const ready = readyFrame(7, 9, "rabbit@b", FEATURE_DELIVER_OWN);
    const before = earlierReady("rabbit@b");
    assert.equal(ready.length, before.length + 1);
    assert.equal(ready.readUInt32LE(FRAME_HEAD), 7);
    assert.equal(ready.readDoubleLE(FRAME_HEAD + 4), 9);
    assert.ok(ready.subarray(FRAME_HEAD + 12, ready.length - 1).equals(before.subarray(FRAME_HEAD + 12)));
  });
});
