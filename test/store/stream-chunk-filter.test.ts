// Chunk filters in the chunk log (src/store/stream/chunk-filter.ts, docs/STREAMS.md "Chunk
// filters"): a chunk with a filter keeps it between its header and its data (osiris's layout:
// the bloom-size byte at 44), survives recovery, is read and sent without it, and the matcher
// follows osiris's rules (values, and bit 0 for messages without a value with match-unfiltered).
// A chunk none of whose messages has a value has no filter at all. Real files in a temp dir.
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChunkLog } from "../../src/store/stream/chunk-log.js";
import { CHUNK_HEADER_BYTES, chunkForClient, chunkMessages, decodeChunkHeader, filterOf } from "../../src/store/stream/chunk-format.js";
import { ChunkMatcher, chunkEnd, chunkFilter, FILTER_BYTES, FILTER_RUN_MIN } from "../../src/store/stream/chunk-filter.js";

const msgs = (prefix: string, n: number): Buffer[] => Array.from({ length: n }, (_, i) => Buffer.from(`${prefix}-${i}`));

describe("stream chunk filters", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "coney-filter-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("builds no filter when no message has a value, and marks messages without one (bit 0)", () => {
    assert.equal(chunkFilter([null, null, ""]), null);
    const f = chunkFilter(["A", null])!;
    assert.equal(f.length, FILTER_BYTES);
    assert.equal(f[0]! & 0x80, 0x80, "bit 0: the chunk also holds messages without a value");
    assert.equal(chunkFilter(["A", "A"])![0]! & 0x80, 0);
  });

  it("matches as osiris does: values, match-unfiltered, chunks without a filter", () => {
    const a = chunkFilter(["A"])!;
    const aAndNone = chunkFilter(["A", null])!;
    const none = Buffer.alloc(0);
    const onlyB = new ChunkMatcher({ values: ["B"], matchUnfiltered: false });
    const bOrNone = new ChunkMatcher({ values: ["B"], matchUnfiltered: true });
    const onlyA = new ChunkMatcher({ values: ["A"], matchUnfiltered: false });
    assert.equal(onlyA.matches(a), true);
    assert.equal(onlyB.matches(a), false);
    assert.equal(onlyB.matches(none), false, "a chunk without values is not for a filtered consumer");
    assert.equal(bOrNone.matches(none), true, "unless it matches unfiltered");
    assert.equal(bOrNone.matches(aAndNone), true, "a chunk that also holds messages without a value");
    assert.equal(bOrNone.matches(a), false);
    // Over many values, false positives stay rare in a 16-byte filter of one value.
    let falsePositives = 0;
    for (let i = 0; i < 1000; i++) if (new ChunkMatcher({ values: [`v${i}`], matchUnfiltered: false }).matches(a)) falsePositives++;
    assert.ok(falsePositives < 30, `${falsePositives} false positives in 1000`);
  });

  it("keeps the filter after the header, recovers it, and sends the chunk without it", async () => {
    const log = ChunkLog.open({ dir, maxSegmentBytes: 1 << 20, now: () => 1000 });
    log.append(msgs("plain", 2));
    log.append(msgs("tagged", 3), 1000, chunkFilter(["A", "B", null]));
    log.append(msgs("after", 1));
    await log.flush(true);
    log.close();
    const again = ChunkLog.open({ dir, maxSegmentBytes: 1 << 20 });
    assert.equal(again.nextOffset, 6, "every chunk recovered");
    const tagged = again.readChunk(1);
    const h = decodeChunkHeader(tagged)!;
    assert.equal(h.bloomSize, FILTER_BYTES);
    assert.equal(tagged.length, CHUNK_HEADER_BYTES + FILTER_BYTES + h.dataLength);
    assert.deepEqual(chunkMessages(tagged).map(String), ["tagged-0", "tagged-1", "tagged-2"]);
    assert.ok(new ChunkMatcher({ values: ["B"], matchUnfiltered: false }).matches(filterOf(tagged)));
    const sent = Buffer.concat(chunkForClient(tagged));
    assert.equal(sent.length, CHUNK_HEADER_BYTES + h.dataLength, "the filter is not sent to clients");
    assert.deepEqual(sent.subarray(CHUNK_HEADER_BYTES), tagged.subarray(CHUNK_HEADER_BYTES + FILTER_BYTES));
    assert.equal(decodeChunkHeader(again.readChunk(0))!.bloomSize, 0);
    assert.equal(chunkForClient(again.readChunk(2)).length, 1, "a chunk without a filter is sent as it is");
    assert.deepEqual(chunkMessages(again.readChunk(2)).map(String), ["after-0"]);
    again.close();
  });

  it("cuts a turn where a run of messages with (or without) a filter value begins, keeping short runs in", () => {
    const run = (v: string | null, n: number): (string | null)[] => Array.from({ length: n }, () => v);
    const turn = [...run("A", 40), ...run(null, 40), ...run("B", 3), ...run(null, 20)];
    assert.equal(chunkEnd(turn, 0, turn.length), 40);
    // The 3 of B are shorter than FILTER_RUN_MIN: they stay with the messages without a value.
    assert.equal(chunkEnd(turn, 40, turn.length), turn.length);
    assert.equal(chunkEnd(turn, 0, 30), 30, "never past the limit");
    const alternating = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? "A" : null));
    assert.equal(chunkEnd(alternating, 0, 200), 200, "alternating kinds make no tiny chunks");
    assert.equal(chunkEnd([...run(null, 5), ...run("A", FILTER_RUN_MIN)], 0, 5 + FILTER_RUN_MIN), 5);
  });
});
