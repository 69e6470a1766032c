/**
 * The link's frames for a native stream publisher whose stream the other end leads (issue 42;
 * docs/CLUSTERING.md "The link protocol"; only to a leader that offered FEATURE_STREAM_PUBLISH).
 * Little-endian, after the frame head:
 *   connecting node → leader
 *     STREAM_PUBLISH    76  u32 batch id | u32 queue id | u32 entries | u16-length reference | entries
 *       entry: f64 publishing id | u8 kind (0 message, 1 sub-entry batch, 2 empty) | u16-length filter value
 *              | kind 1: u8 compression | u16 records | u32 uncompressed bytes | then u32 length | bytes
 *   leader → connecting node
 *     STREAM_PUBLISHED  77  u32 batch id | u8 end (0 answered, 1 the stream is gone, 2 not led there)
 *                           | u32 confirmed | f64 ids | u32 refused | (f64 id | u8 why: 1 empty, 2 unavailable, 3 not stored)
 * A batch's answer comes once what it appended is stored; the bytes of an entry are its client's,
 * untouched (an AMQP 1.0 message, or a sub-entry batch as it came).
 */
import type { EncodedSubBatch, ForwardedBatchEnd, ForwardedRefusal, NativeBatch, NativeEntry } from "../broker/index.js";
import { subBatchRecords } from "../store/stream/sub-batch.js";
import { FRAME_HEAD, frame, readString } from "./link-frames.js";
import type { LinkWriter } from "./link-writer.js";
import type { SlabPool } from "../listeners/slab-pool.js";

export const STREAM_PUBLISH = 76;
export const STREAM_PUBLISHED = 77;

const KIND_MESSAGE = 0;
const KIND_SUB_BATCH = 1;
const KIND_EMPTY = 2;
const WHY: readonly ForwardedRefusal[] = ["empty", "unavailable", "notStored"];

function entryHead(e: NativeEntry, filter: string | null): number {
  return 8 + 1 + 2 + (filter === null ? 0 : Buffer.byteLength(filter)) + (e !== null && !Buffer.isBuffer(e) ? 7 : 0) + 4;
}

function entryBytes(e: NativeEntry): Buffer | null {
  return e === null ? null : Buffer.isBuffer(e) ? e : e.data;
}

/**
 * Writes a STREAM_PUBLISH: heads in the writer's slab, each entry's bytes after its head (small ones
 * copied, larger ones referenced: the client's socket gave them, nothing reuses them).
 */
export function writePublish(w: LinkWriter, batchId: number, queueId: number, reference: string, batch: NativeBatch): void {
  const { ids, entries, filters } = batch;
  const refBytes = Buffer.byteLength(reference);
  let n = 1 + 12 + 2 + refBytes;
  for (let i = 0; i < ids.length; i++) n += entryHead(entries[i]!, filters?.[i] ?? null) + (entryBytes(entries[i]!)?.length ?? 0);
  let at = w.reserve(FRAME_HEAD + 12 + 2 + refBytes);
  let b = w.slab;
  b.writeUInt32LE(n, at);
  b[at + 4] = STREAM_PUBLISH;
  b.writeUInt32LE(batchId, at + FRAME_HEAD);
  b.writeUInt32LE(queueId, at + FRAME_HEAD + 4);
  b.writeUInt32LE(ids.length, at + FRAME_HEAD + 8);
  b.writeUInt16LE(refBytes, at + FRAME_HEAD + 12);
  b.write(reference, at + FRAME_HEAD + 14);
  for (let i = 0; i < ids.length; i++) {
    const e = entries[i]!;
    const filter = filters?.[i] ?? null;
    at = w.reserve(entryHead(e, filter));
    b = w.slab;
    b.writeDoubleLE(ids[i]!, at);
    b[at + 8] = e === null ? KIND_EMPTY : Buffer.isBuffer(e) ? KIND_MESSAGE : KIND_SUB_BATCH;
    const fl = filter === null ? 0 : b.write(filter, at + 11);
    b.writeUInt16LE(fl, at + 9);
    at += 11 + fl;
    if (e !== null && !Buffer.isBuffer(e)) {
      b[at] = e.compression;
      b.writeUInt16LE(e.records, at + 1);
      b.writeUInt32LE(e.uncompressedBytes, at + 3);
      at += 7;
    }
    const bytes = entryBytes(e);
    b.writeUInt32LE(bytes?.length ?? 0, at);
    if (bytes !== null) w.writeBody(bytes);
  }
}

/**
 * A STREAM_PUBLISH's fields. Entries are views of `f`; when `f` lies in a pooled read slab, the
 * slab is pinned (the log keeps the bytes until its chunk is written, and counts no holds).
 */
export function readPublish(f: Buffer, slabs: SlabPool | null): { batchId: number; queueId: number; reference: string; batch: NativeBatch } {
  const batchId = f.readUInt32LE(FRAME_HEAD);
  const queueId = f.readUInt32LE(FRAME_HEAD + 4);
  const count = f.readUInt32LE(FRAME_HEAD + 8);
  const [reference, afterReference] = readString(f, FRAME_HEAD + 12);
  let at = afterReference;
  const ids = new Array<number>(count);
  const entries = new Array<NativeEntry>(count);
  let filters: (string | null)[] | null = null;
  for (let i = 0; i < count; i++) {
    ids[i] = f.readDoubleLE(at);
    const kind = f[at + 8];
    const [filter, p] = readString(f, at + 9);
    if (filter !== "") (filters ??= new Array<string | null>(count).fill(null))[i] = filter;
    at = p;
    let sub: Omit<EncodedSubBatch, "data" | "expand"> | null = null;
    if (kind === KIND_SUB_BATCH) {
      sub = { compression: f[at]!, records: f.readUInt16LE(at + 1), uncompressedBytes: f.readUInt32LE(at + 3) };
      at += 7;
    }
    const len = f.readUInt32LE(at);
    const data = f.subarray(at + 4, at + 4 + len);
    at += 4 + len;
    entries[i] = kind === KIND_EMPTY ? null : sub === null ? data : subBatch(sub, data);
  }
  if (slabs !== null && count > 0) {
    const lease = slabs.lease();
    lease.add(f);
    lease.pin();
  }
  return { batchId, queueId, reference, batch: { ids, entries, filters } };
}

function subBatch(s: Omit<EncodedSubBatch, "data" | "expand">, data: Buffer): EncodedSubBatch {
  return { ...s, data, expand: () => subBatchRecords(s.compression, s.records, data) };
}

/** A STREAM_PUBLISHED: `end` given, the batch was refused whole (no ids follow). */
export function publishedFrame(batchId: number, end: ForwardedBatchEnd | null, confirmed: readonly number[], refused: readonly (readonly [number, ForwardedRefusal])[]): Buffer {
  const f = frame(STREAM_PUBLISHED, 4 + 1 + 4 + confirmed.length * 8 + 4 + refused.length * 9);
  f.writeUInt32LE(batchId, FRAME_HEAD);
  f[FRAME_HEAD + 4] = end === null ? 0 : end === "notFound" ? 1 : 2;
  let at = FRAME_HEAD + 5;
  f.writeUInt32LE(confirmed.length, at);
  at += 4;
  for (const id of confirmed) at = f.writeDoubleLE(id, at);
  f.writeUInt32LE(refused.length, at);
  at += 4;
  for (const [id, why] of refused) {
    at = f.writeDoubleLE(id, at);
    f[at++] = WHY.indexOf(why) + 1;
  }
  return f;
}

export function readPublished(f: Buffer): { batchId: number; end: ForwardedBatchEnd | null; confirmed: number[]; refused: [number, ForwardedRefusal][] } {
  const batchId = f.readUInt32LE(FRAME_HEAD);
  const e = f[FRAME_HEAD + 4];
  let at = FRAME_HEAD + 5;
  const confirmed = new Array<number>(f.readUInt32LE(at));
  at += 4;
  for (let i = 0; i < confirmed.length; i++, at += 8) confirmed[i] = f.readDoubleLE(at);
  const refused = new Array<[number, ForwardedRefusal]>(f.readUInt32LE(at));
  at += 4;
  for (let i = 0; i < refused.length; i++, at += 9) refused[i] = [f.readDoubleLE(at), WHY[f[at + 8]! - 1] ?? "notStored"];
  return { batchId, end: e === 0 ? null : e === 1 ? "notFound" : "unavailable", confirmed, refused };
}
