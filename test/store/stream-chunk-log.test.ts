// The stream chunk log (src/store/stream, docs/STREAMS.md): chunks in the stream protocol's
// layout in segment files, found by offset and timestamp, deleted whole by retention, and
// recovered after a crash with a torn last chunk cut off. Real files in a temp dir.
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChunkLog } from "../../src/store/stream/chunk-log.js";
import { CHUNK_HEADER_BYTES, chunkMessages, decodeChunkHeader } from "../../src/store/stream/chunk-format.js";

const msgs = (prefix: string, n: number): Buffer[] => Array.from({ length: n }, (_, i) => Buffer.from(`${prefix}-${i}`));
const text = (chunk: Buffer): string[] => chunkMessages(chunk).map((m) => m!.toString());

describe("stream chunk log", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "coney-stream-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("appends chunks with contiguous offsets and reads them back in the stream protocol's layout", async () => {
    const log = ChunkLog.open({ dir, maxSegmentBytes: 1 << 20, now: () => 1000 });
    assert.equal(log.append(msgs("a", 3)).firstOffset, 0);
    assert.deepEqual(text(log.readChunk(0)), ["a-0", "a-1", "a-2"], "a pending chunk is read from memory");
    // A message may arrive in pieces (frames of one body): stored as one entry.
    assert.equal(log.append([[Buffer.from("he"), Buffer.from("llo")], Buffer.from("b")]).firstOffset, 3);
    assert.ok(log.hasPending);
    await log.flush(true);
    assert.ok(!log.hasPending);
    assert.equal(log.nextOffset, 5);
    assert.equal(log.chunkCount, 2);
    const first = log.readChunk(0);
    const h = decodeChunkHeader(first)!;
    assert.deepEqual([first[0], h.chunkType, h.entries, h.records, h.firstOffset, h.timestamp, h.dataLength], [0x50, 0, 3, 3, 0, 1000, first.length - CHUNK_HEADER_BYTES]);
    assert.deepEqual(text(first), ["a-0", "a-1", "a-2"]);
    assert.deepEqual(text(log.readChunk(1)), ["hello", "b"]);
    log.close();
  });

  it("finds the chunk of an offset and of a timestamp by binary search", async () => {
    let t = 1000;
    const log = ChunkLog.open({ dir, maxSegmentBytes: 1 << 20, now: () => t });
    for (let c = 0; c < 100; c++) {
      log.append(msgs(`c${c}`, 10));
      t += 1000;
    }
    assert.equal(log.findOffset(0), 0);
    assert.equal(log.findOffset(9), 0);
    assert.equal(log.findOffset(10), 1);
    assert.equal(log.findOffset(555), 55);
    assert.equal(log.findOffset(999), 99);
    assert.equal(log.findOffset(1000), 100, "past the end");
    assert.equal(log.findTimestamp(0), 0);
    assert.equal(log.findTimestamp(1000), 0);
    assert.equal(log.findTimestamp(1001), 1);
    assert.equal(log.findTimestamp(50_500), 50);
    assert.equal(log.findTimestamp(1_000_000), 100);
    log.close();
  });

  it("starts a segment past the size limit, named by its first offset, and deletes whole old segments for retention", async () => {
    let t = 0;
    const log = ChunkLog.open({ dir, maxSegmentBytes: 1000, now: () => t });
    const body = Buffer.alloc(200, 1);
    for (let i = 0; i < 20; i++) {
      log.append([body, body]);
      t += 1000;
    }
    await log.flush(false);
    const files = readdirSync(dir).sort();
    assert.ok(files.length >= 5, `segments: ${files.join(",")}`);
    assert.equal(files[0], "00000000000000000000.segment");
    assert.match(files[1]!, /^0000000000000000000[0-9]{1}\.segment$|^000000000000000000[0-9]{2}\.segment$/);
    const before = log.bytes;
    assert.equal(before, files.reduce((n, f) => n + statSync(join(dir, f)).size, 0));
    // Size: down to at most 2,000 bytes, whole segments only, never the current one.
    const dropped = log.applyRetention({ maxBytes: 2000, maxAgeMs: 0 }, t);
    assert.ok(dropped > 0 && log.bytes <= 2000 + 1000);
    assert.equal(readdirSync(dir).length, files.length - dropped);
    assert.ok(log.firstOffset > 0);
    assert.equal(log.findOffset(0), 0, "an offset retention removed starts at the first kept chunk");
    assert.equal(log.chunkAt(0).firstOffset, log.firstOffset);
    // Age: segments whose newest chunk is older than 3 s go; the current one stays even if old.
    log.applyRetention({ maxBytes: 0, maxAgeMs: 3000 }, t + 60_000);
    assert.equal(log.segmentCount, 1);
    assert.ok(log.chunkCount > 0);
    log.close();
  });

  it("recovers its index from the files, and cuts a torn last chunk so appends continue after the last whole one", async () => {
    const log = ChunkLog.open({ dir, maxSegmentBytes: 1 << 20, now: () => 5000 });
    log.append(msgs("x", 4));
    log.append(msgs("y", 4));
    log.append(msgs("z", 4));
    await log.flush(true);
    log.close();
    const [file] = readdirSync(dir);
    const path = join(dir, file!);
    // A crash in the middle of the third chunk: its last bytes never reached the disk.
    truncateSync(path, statSync(path).size - 3);
    const again = ChunkLog.open({ dir, maxSegmentBytes: 1 << 20, now: () => 6000 });
    assert.equal(again.chunkCount, 2);
    assert.equal(again.nextOffset, 8);
    assert.deepEqual(text(again.readChunk(1)), ["y-0", "y-1", "y-2", "y-3"]);
    assert.equal(again.append(msgs("w", 1)).firstOffset, 8);
    await again.flush(true);
    again.close();
    const third = ChunkLog.open({ dir, maxSegmentBytes: 1 << 20 });
    assert.deepEqual(text(third.readChunk(2)), ["w-0"]);
    third.close();
  });

  it("cuts a last chunk whose data does not match its CRC", async () => {
    const log = ChunkLog.open({ dir, maxSegmentBytes: 1 << 20 });
    log.append(msgs("ok", 2));
    log.append(msgs("bad", 2));
    await log.flush(true);
    log.close();
    const path = join(dir, readdirSync(dir)[0]!);
    const bytes = readFileSync(path);
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
    writeFileSync(path, bytes);
    const again = ChunkLog.open({ dir, maxSegmentBytes: 1 << 20 });
    assert.equal(again.chunkCount, 1);
    assert.equal(again.nextOffset, 2);
    again.close();
  });

  it("refuses to open a stream whose sealed segment is damaged", async () => {
    const log = ChunkLog.open({ dir, maxSegmentBytes: 100 });
    for (let i = 0; i < 4; i++) log.append(msgs(`s${i}`, 10));
    await log.flush(true);
    log.close();
    const first = join(dir, readdirSync(dir).sort()[0]!);
    truncateSync(first, statSync(first).size - 1);
    assert.throws(() => ChunkLog.open({ dir, maxSegmentBytes: 100 }), /is damaged at byte/);
  });

  it("destroy removes every file", async () => {
    const log = ChunkLog.open({ dir: join(dir, "s"), maxSegmentBytes: 100 });
    log.append(msgs("m", 3));
    await log.flush(true);
    log.destroy();
    assert.deepEqual(readdirSync(dir), []);
  });

  it("deleted while a flush writes: the flush ends without error, the files go, and the same name starts empty", async () => {
    const log = ChunkLog.open({ dir: join(dir, "s"), maxSegmentBytes: 1000 });
    for (let i = 0; i < 20; i++) log.append(msgs(`c${i}`, 50));
    const flushing = log.flush(true);
    log.destroy();
    // A stream declared again with the same name at once gets a fresh directory.
    const again = ChunkLog.open({ dir: join(dir, "s"), maxSegmentBytes: 1000 });
    assert.equal(again.nextOffset, 0);
    await flushing;
    assert.deepEqual(readdirSync(dir), ["s"], "the deleted log's files are removed once its flush is over");
    again.append(msgs("new", 2));
    await again.flush(true);
    assert.deepEqual(text(again.readChunk(0)), ["new-0", "new-1"]);
    again.close();
  });
});
