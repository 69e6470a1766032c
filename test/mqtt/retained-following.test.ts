// The retained store's following (what `coney --workers N` relays between workers,
// src/workers/retained-relay.ts): a change made through one store is applied by another and never
// told again (no echo); a clear travels too; a snapshot makes a store the same as its peer's, what
// it lacked added and what the peer lacked gone; Buffers in headers survive the trip.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { RetainedStore, type RetainedMessage } from "../../src/mqtt/retained-store.js";
import { createLogger } from "../../src/logging/logger.js";

const log = createLogger("silent");
const msg = (topic: string, payload: string, headers: Record<string, unknown> = {}): RetainedMessage => ({ topic, qos: 1, payload: Buffer.from(payload), properties: { headers } as RetainedMessage["properties"], publishedAt: 1 });

describe("retained messages followed between stores", () => {
  it("a change made on one is applied on the other, which does not tell it again", () => {
    const a = new RetainedStore(null, log);
    const b = new RetainedStore(null, log);
    const fromA: string[] = [];
    const fromB: string[] = [];
    a.onChange = (c) => fromA.push(c);
    b.onChange = (c) => fromB.push(c);
    a.retain("/", msg("t/1", "one", { "x-correlation-id": Buffer.from([1, 2, 3]) }));
    for (const c of fromA) b.applyChange(c);
    assert.deepEqual(fromB, [], "an applied change is not told again");
    const [got] = b.matching("/", "t/#", 2);
    assert.equal(got!.payload.toString(), "one");
    assert.deepEqual(got!.properties.headers?.["x-correlation-id"], Buffer.from([1, 2, 3]));
    // A clear (empty payload) travels the same way.
    a.retain("/", msg("t/1", ""));
    b.applyChange(fromA.at(-1)!);
    assert.equal(b.count("/"), 0);
  });

  it("a snapshot makes a store the same as its peer's", () => {
    const peer = new RetainedStore(null, log);
    peer.retain("/", msg("kept", "k"));
    peer.retain("other", msg("x", "y"));
    const late = new RetainedStore(null, log);
    late.retain("/", msg("stale", "gone on the peer"));
    late.followSnapshot(peer.snapshot());
    assert.deepEqual(late.matching("/", "#", 2).map((m) => m.topic), ["kept"]);
    assert.equal(late.matching("other", "#", 2)[0]!.payload.toString(), "y");
  });
});
