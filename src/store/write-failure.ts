/**
 * What the message store gives up when a write fails (a full disk, an I/O error, or the
 * definitions a batch depends on could not be saved). Every record not yet synced, in any
 * segment, is given up as one: the segment is cut back to its synced end and takes no more
 * records (refs into the lost part are never reused, so no stale mark can hit a new record); each
 * queue's paged tail drops the lost refs; then `lostRecords` lets the broker drop every in-memory
 * entry of those messages, in every queue the publish reached, so the publish is enqueued nowhere.
 * The store nacks every waiting publisher. Confirmed messages are untouched: they were synced.
 */
import type { LostRecordsHandler, Message } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import { refOffset, refSegment } from "./record-ref.js";
import { MarksNotWritten, type Segment } from "./segment.js";

/** A queue's stored log, as far as a write failure concerns it. */
interface LosingLog {
  dropLost(isLost: (ref: number) => boolean, lost: Set<Message>): void;
}

export interface GivenUp {
  /** Segments cut back. */
  readonly count: number;
  /** The segment being appended to was one of them: appends go to a new one. */
  readonly currentLost: boolean;
}

export function giveUpUnsynced(
  segments: ReadonlyMap<number, Segment>,
  logs: Iterable<LosingLog>,
  lostRecords: LostRecordsHandler | null,
  stats: { recordsLost: number },
  current: Segment | null,
  group: number,
): GivenUp {
  let count = 0;
  let currentLost = false;
  for (const seg of segments.values()) {
    if (!seg.writable || seg.size <= seg.syncedSize) continue;
    seg.abandonUnsynced();
    count++;
    if (seg === current) currentLost = true;
  }
  if (count === 0) return { count, currentLost };
  const isLost = (ref: number): boolean => refOffset(ref) >= (segments.get(refSegment(ref))?.lostFrom ?? Infinity);
  const lost = new Set<Message>();
  for (const log of logs) log.dropLost(isLost, lost);
  const before = stats.recordsLost;
  lostRecords?.(isLost, lost, group);
  stats.recordsLost = before + lost.size;
  return { count, currentLost };
}

/** What a failed write is, the same for every repeat of one cause: the errno code (ENOSPC, EIO) or the error's message. */
export function failureCode(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return typeof code === "string" ? code : err.message;
  }
  return String(err);
}

/**
 * Waits for all of a flush's writes (allSettled: a failed segment must not be cut back while
 * another's write is still running). `failure`: a write that lost records, null when none did;
 * `marksLost`: some side-file marks were kept back for the next flush (logged here).
 */
export async function settleWrites(writes: readonly Promise<void>[], logger: Logger): Promise<{ failure: unknown; marksLost: boolean }> {
  let failure: unknown = null;
  let marksLost = false;
  for (const r of await Promise.allSettled(writes)) {
    if (r.status === "fulfilled") continue;
    if (r.reason instanceof MarksNotWritten) {
      marksLost = true;
      logger.warn(r.reason.message, { err: r.reason.cause });
    } else {
      failure = r.reason;
    }
  }
  return { failure, marksLost };
}
