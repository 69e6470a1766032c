/**
 * Boot recovery of the message store: reads every segment in order, skips records marked dead in
 * its side file, and gives each durable queue its live entries back in publish order (by store
 * sequence), redelivered when a delivery was recorded or the last stop was not clean. Recovered messages start out paged: only
 * their refs are kept (8 bytes each) and the queue pages them in as consumers need them, so boot
 * time and memory do not depend on body sizes. A record whose queue no longer exists is
 * dead. A torn tail (the file ends inside a record) or a record whose checksum does not match is
 * skipped and logged; recovery always completes.
 *
 * Compaction happens here: an old segment whose live records fill less than `compactBelow` of
 * it has them copied into the new segment, and is deleted once the copies are synced. A crash in
 * between leaves both copies; they share a store sequence, so the next boot keeps one.
 */
import { decodeBasicProperties } from "../amqp/codec/generated.js";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { MessageStore } from "./message-store.js";
import { readRecord, type DecodedRecord } from "./message-record.js";
import { bodyLength } from "../broker/values/message-body.js";
import { recordRef } from "./record-ref.js";
import { takeCleanShutdownMarker } from "./clean-shutdown.js";
import { RefFifo } from "./ref-fifo.js";
import type { PriorityQueueLog } from "./priority-queue-log.js";
import type { StoredQueueLog } from "./stored-queue-log.js";
import { DELETED_SUFFIX, DELIVERED_BIT, SEGMENT_MAGIC, Segment, segmentFileName } from "./segment.js";

export interface RecoveryReport {
  segments: number;
  messages: number;
  queues: number;
  /** Records of queues that no longer exist. */
  orphaned: number;
  corruptRecords: number;
  tornTails: number;
  compactedSegments: number;
  deletedSegments: number;
  ms: number;
}

/** A queue's live records as found, in file order: store sequences and refs (negative = delivered). */
interface QueueScan {
  readonly log: StoredQueueLog | PriorityQueueLog;
  readonly seqs: RefFifo;
  readonly refs: RefFifo;
  /** Body sizes, in the same order. */
  readonly sizes: RefFifo;
  /** Message priorities, in the same order: only for a priority queue (decoding properties costs). */
  readonly priorities: RefFifo | null;
  sorted: boolean;
  lastSeq: number;
}

const SEGMENT_FILE = /^(\d{8})\.seg$/;
const MAX_LOGGED_PER_SEGMENT = 10;

export function recoverMessages(store: MessageStore, compactBelow = 0.5): RecoveryReport {
  const started = performance.now();
  const clean = takeCleanShutdownMarker(store.dir);
  removeOrphanAckFiles(store.dir);
  const report: RecoveryReport = { segments: 0, messages: 0, queues: 0, orphaned: 0, corruptRecords: 0, tornTails: 0, compactedSegments: 0, deletedSegments: 0, ms: 0 };
  const ids = readdirSync(store.dir)
    .map((f) => SEGMENT_FILE.exec(f)?.[1])
    .filter((x): x is string => x !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  // Compaction appends while later segments are still being read: new ids come after all of them.
  if (ids.length > 0) store.nextSegmentId = ids[ids.length - 1]! + 1;
  const byQueue = new Map<string, QueueScan>();
  const retired: Segment[] = [];
  let maxSeq = 0;

  for (const id of ids) {
    report.segments++;
    const seg = new Segment(store.dir, id, 0, false);
    store.adoptSegment(seg);
    const buf = readFileSync(seg.path);
    if (buf.length < SEGMENT_MAGIC.length || !buf.subarray(0, SEGMENT_MAGIC.length).equals(SEGMENT_MAGIC)) {
      if (buf.length >= SEGMENT_MAGIC.length) {
        store.logger.error("message store: segment has no valid header; set aside", { file: seg.path });
        renameSync(seg.path, `${seg.path}.corrupt`);
      }
      dropSegment(store, seg, report);
      continue;
    }
    seg.size = buf.length;
    const { dead, delivered, validBytes } = readMarks(store, seg);
    // First pass: which records are live, and how much of the segment they fill.
    const live: Array<{ offset: number; end: number; rec: DecodedRecord; q: QueueScan }> = [];
    let liveBytes = 0;
    let logged = 0;
    let records = 0;
    for (let pos = SEGMENT_MAGIC.length; ; ) {
      const r = readRecord(buf, pos);
      if (r.status === "end") break;
      if (r.status === "torn") {
        report.tornTails++;
        store.logger.warn("message store: torn record at the end of a segment skipped (interrupted write)", { file: seg.path, offset: pos, bytes: buf.length - pos });
        break;
      }
      if (r.status === "skipped") {
        // Died before its write (pending-records.ts): dead, and its extent is a hole.
        pos = r.next;
        records++;
        continue;
      }
      if (r.status === "corrupt") {
        report.corruptRecords++;
        if (logged++ < MAX_LOGGED_PER_SEGMENT) store.logger.warn("message store: record with a bad checksum skipped", { file: seg.path, offset: pos });
        pos = r.next;
        continue;
      }
      const offset = pos;
      pos = r.next;
      records++;
      if (r.record.storeSeq > maxSeq) maxSeq = r.record.storeSeq;
      // Transient records only kept a paged queue's order while the broker ran.
      if (!r.record.persistent || dead.has(offset)) continue;
      let q = byQueue.get(r.record.key);
      if (!q) {
        const log = store.logs.get(r.record.key);
        if (!log) {
          report.orphaned++;
          continue;
        }
        byQueue.set(r.record.key, (q = { log, seqs: new RefFifo(), refs: new RefFifo(), sizes: new RefFifo(), priorities: log.levelCount > 1 ? new RefFifo() : null, sorted: true, lastSeq: 0 }));
      }
      live.push({ offset, end: pos, rec: r.record, q });
      liveBytes += pos - offset;
    }
    if (live.length === 0) {
      dropSegment(store, seg, report);
      continue;
    }
    seg.openAcks(validBytes);
    // After an unclean stop a delivery's mark may not have reached the file (clean-shutdown.ts).
    const wasDelivered = (offset: number): boolean => !clean || delivered.has(offset);
    const copies = liveBytes < compactBelow * buf.length ? copyLive(store, seg.path, buf, live, wasDelivered) : null;
    if (copies !== null) {
      retired.push(seg);
      report.compactedSegments++;
    } else {
      seg.live = live.length;
      seg.records = records;
    }
    for (let i = 0; i < live.length; i++) {
      const l = live[i]!;
      const ref = copies !== null ? copies[i]! : recordRef(seg.id, l.offset);
      const delivered = wasDelivered(l.offset);
      const q = l.q;
      if (l.rec.storeSeq <= q.lastSeq) q.sorted = false;
      q.lastSeq = l.rec.storeSeq;
      q.seqs.push(l.rec.storeSeq);
      q.refs.push(delivered ? -ref : ref);
      q.sizes.push(bodyLength(l.rec.body));
      q.priorities?.push(decodeBasicProperties(l.rec.properties).priority ?? 0);
    }
  }

  store.nextStoreSeq = maxSeq + 1;
  for (const q of byQueue.values()) {
    report.queues++;
    const seqs = q.seqs.drain();
    const refs = q.refs.drain();
    const sizes = q.sizes.drain();
    const priorities = q.priorities?.drain() ?? null;
    // Copies made by compaction sit in later segments than records published after them.
    const order = q.sorted ? null : Array.from(seqs.keys()).sort((a, b) => seqs[a]! - seqs[b]!);
    let prevSeq = -1;
    for (let k = 0; k < seqs.length; k++) {
      const i = order === null ? k : order[k]!;
      const v = refs[i]!;
      if (seqs[i] === prevSeq) {
        // The second copy of a record (crash between a compaction's copy and its delete).
        store.markDead(Math.abs(v));
        continue;
      }
      prevSeq = seqs[i]!;
      q.log.restorePaged(Math.abs(v), v < 0, sizes[i]!, priorities === null ? 0 : priorities[i]!);
      report.messages++;
    }
  }
  for (const seg of retired) store.retire(seg);
  report.ms = Math.round(performance.now() - started);
  return report;
}

/**
 * Copies a sparse segment's live records to the current segment and writes them now (so no
 * segment's bytes stay in memory past its turn), fsynced: the original is deleted later. When
 * they cannot be written (a full disk at boot) the copies are given up and null says to keep
 * using the original: recovery never fails for want of space.
 */
function copyLive(store: MessageStore, file: string, buf: Buffer, live: ReadonlyArray<{ offset: number; end: number }>, wasDelivered: (offset: number) => boolean): number[] | null {
  const copies = live.map((l) => store.appendRaw(buf.subarray(l.offset, l.end), wasDelivered(l.offset)));
  if (store.syncPendingNow()) return copies;
  for (const ref of copies) store.markDead(ref);
  store.logger.warn("message store: a sparse segment could not be compacted at start (no space); it is kept as it is", { file });
  return null;
}

/** The side file: dead offsets and delivered offsets; a torn last entry is ignored (and cut). */
function readMarks(store: MessageStore, seg: Segment): { dead: Set<number>; delivered: Set<number>; validBytes: number } {
  const dead = new Set<number>();
  const delivered = new Set<number>();
  if (!existsSync(seg.ackPath)) return { dead, delivered, validBytes: 0 };
  const buf = readFileSync(seg.ackPath);
  const validBytes = buf.length - (buf.length % 4);
  if (validBytes !== buf.length) store.logger.warn("message store: torn entry at the end of an ack file skipped", { file: seg.ackPath });
  for (let p = 0; p < validBytes; p += 4) {
    const v = buf.readUInt32LE(p);
    if (v >= DELIVERED_BIT) delivered.add(v - DELIVERED_BIT);
    else dead.add(v);
  }
  return { dead, delivered, validBytes };
}

function dropSegment(store: MessageStore, seg: Segment, report: RecoveryReport): void {
  store.segments.delete(seg.id);
  seg.destroy();
  report.deletedSegments++;
}

/** Side files left without their segment, and data files a crash left half deleted, are removed. */
function removeOrphanAckFiles(dir: string): void {
  for (const f of readdirSync(dir)) {
    if (f.endsWith(DELETED_SUFFIX)) rmSync(join(dir, f), { force: true });
    const m = /^(\d{8})\.acks$/.exec(f);
    if (m && !existsSync(join(dir, segmentFileName(Number(m[1]), "seg")))) rmSync(join(dir, f), { force: true });
  }
}
