/**
 * Boot recovery of the message store: reads every segment in order, skips records marked dead in
 * its side file, and gives each durable queue its live entries back in publish order (by store
 * sequence), redelivered when a delivery was recorded. A record whose queue no longer exists is
 * dead. A torn tail (the file ends inside a record) or a record whose checksum does not match is
 * skipped and logged; recovery always completes.
 *
 * Compaction happens here: an old segment whose live records fill less than `compactBelow` of
 * it has them copied into the new segment, and is deleted once the copies are synced. A crash in
 * between leaves both copies; they share a store sequence, so the next boot keeps one.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { decodeBasicProperties } from "../amqp/codec/generated.js";
import { createMessage, type Message } from "../broker/message.js";
import type { MessageStore } from "./message-store.js";
import { readRecord, type DecodedRecord } from "./message-record.js";
import { recordRef } from "./record-ref.js";
import { DELIVERED_BIT, SEGMENT_MAGIC, Segment, segmentFileName } from "./segment.js";

/** What recovery needs of a durable queue (Queue.restore). */
export interface RecoveryTarget {
  restore(message: Message, redelivered: boolean, storeRef: number): void;
}

/** Finds the durable queue a record belongs to, by its key "vhost\0name". */
export type QueueLookup = (vhost: string, name: string) => RecoveryTarget | undefined;

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

interface Found {
  readonly rec: DecodedRecord;
  readonly seg: Segment;
  readonly offset: number;
  /** The whole record, for copying during compaction. */
  readonly raw: Buffer;
  readonly delivered: boolean;
  readonly copy: boolean;
}

const SEGMENT_FILE = /^(\d{8})\.seg$/;
const MAX_LOGGED_PER_SEGMENT = 10;

export function recoverMessages(store: MessageStore, lookup: QueueLookup, compactBelow = 0.5): RecoveryReport {
  const started = performance.now();
  removeOrphanAckFiles(store.dir);
  const report: RecoveryReport = { segments: 0, messages: 0, queues: 0, orphaned: 0, corruptRecords: 0, tornTails: 0, compactedSegments: 0, deletedSegments: 0, ms: 0 };
  const ids = readdirSync(store.dir)
    .map((f) => SEGMENT_FILE.exec(f)?.[1])
    .filter((x): x is string => x !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  const byQueue = new Map<string, { target: RecoveryTarget; found: Found[]; sorted: boolean; lastSeq: number }>();
  const unknown = new Set<string>();
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
    const found: Found[] = [];
    let liveBytes = 0;
    let logged = 0;
    for (let pos = SEGMENT_MAGIC.length; ; ) {
      const r = readRecord(buf, pos);
      if (r.status === "end") break;
      if (r.status === "torn") {
        report.tornTails++;
        store.logger.warn("message store: torn record at the end of a segment skipped (interrupted write)", { file: seg.path, offset: pos, bytes: buf.length - pos });
        break;
      }
      if (r.status === "corrupt") {
        report.corruptRecords++;
        if (logged++ < MAX_LOGGED_PER_SEGMENT) store.logger.warn("message store: record with a bad checksum skipped", { file: seg.path, offset: pos });
        pos = r.next;
        continue;
      }
      const offset = pos;
      pos = r.next;
      if (r.record.storeSeq > maxSeq) maxSeq = r.record.storeSeq;
      if (dead.has(offset)) continue;
      const key = r.record.key;
      let q = byQueue.get(key);
      if (!q) {
        const sep = key.indexOf("\u0000");
        const target = unknown.has(key) || sep < 0 ? undefined : lookup(key.slice(0, sep), key.slice(sep + 1));
        if (!target) {
          unknown.add(key);
          report.orphaned++;
          continue;
        }
        byQueue.set(key, (q = { target, found: [], sorted: true, lastSeq: 0 }));
      }
      const raw = buf.subarray(offset, pos);
      found.push({ rec: r.record, seg, offset, raw, delivered: delivered.has(offset), copy: false });
      liveBytes += raw.length;
    }
    if (found.length === 0) {
      dropSegment(store, seg, report);
      continue;
    }
    seg.openAcks(validBytes);
    const copy = liveBytes < compactBelow * buf.length;
    if (copy) {
      retired.push(seg);
      report.compactedSegments++;
    } else {
      seg.live = found.length;
    }
    for (const f of found) {
      const q = byQueue.get(f.rec.key)!;
      if (f.rec.storeSeq <= q.lastSeq) q.sorted = false;
      q.lastSeq = f.rec.storeSeq;
      q.found.push(copy ? { ...f, copy } : f);
    }
  }

  store.nextStoreSeq = maxSeq + 1;
  for (const q of byQueue.values()) {
    report.queues++;
    // Copies made by compaction sit in later segments than records published after them.
    if (!q.sorted) q.found.sort((a, b) => a.rec.storeSeq - b.rec.storeSeq);
    let prevSeq = -1;
    for (const f of q.found) {
      if (f.rec.storeSeq === prevSeq) {
        // The second copy of a record (crash between a compaction's copy and its delete).
        if (!f.copy) store.markDead(recordRef(f.seg.id, f.offset));
        continue;
      }
      prevSeq = f.rec.storeSeq;
      const ref = f.copy ? store.appendRaw(f.raw, f.delivered) : recordRef(f.seg.id, f.offset);
      const r = f.rec;
      q.target.restore(createMessage(r.exchange, r.routingKey, decodeBasicProperties(r.properties), r.properties, r.body, r.publishedAt), f.delivered, ref);
      report.messages++;
    }
  }
  for (const seg of retired) store.retire(seg);
  report.ms = Math.round(performance.now() - started);
  return report;
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

/** Side files left without their segment (deleted between the two unlinks) are removed. */
function removeOrphanAckFiles(dir: string): void {
  for (const f of readdirSync(dir)) {
    const m = /^(\d{8})\.acks$/.exec(f);
    if (m && !existsSync(join(dir, segmentFileName(Number(m[1]), "seg")))) rmSync(join(dir, f), { force: true });
  }
}
