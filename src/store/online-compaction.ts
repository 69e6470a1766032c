/**
 * Online compaction of the message store. An old segment less than `below` live keeps its whole
 * file on disk for a few survivors. When every survivor is paged out, every ref to it is in some
 * queue's tail (none on an in-memory entry, which the store cannot find), so the survivors can
 * be copied to the current segment and the tails pointed at the copies; the old segment is
 * deleted once a flush has synced the copies (MessageStore.retire). Segments with a survivor in
 * memory wait until it is consumed, or for compaction at the next boot (store-recovery.ts).
 *
 * Faults: the copies are written and fsynced before any tail moves to them, so a full disk or a
 * crash mid-way leaves every ref on the old, intact segment (a crash after the copies leaves both;
 * the next boot keeps one). It never runs while a group commit is on disk: its synchronous writes
 * must not land in the file before that commit's.
 */
import type { CompactionTarget } from "./compaction-target.js";
import type { RefFifo } from "./ref-fifo.js";
import { refOffset, refSegment } from "./record-ref.js";
import type { Segment } from "./segment.js";

interface Candidate {
  readonly seg: Segment;
  found: number;
}

/** At most `maxSegments` per call: compaction reads and writes synchronously, on the event loop. */
export function compactSegments(store: CompactionTarget, below: number, maxSegments: number): number {
  if (store.isFlushing) return 0;
  const candidates = new Map<number, Candidate>();
  for (const seg of store.segments.values()) {
    if (seg !== store.currentSegment && seg.live > 0 && !seg.hasPendingData && seg.live < below * seg.records) candidates.set(seg.id, { seg, found: 0 });
  }
  if (candidates.size === 0) return 0;
  forEachTailRef(store, candidates, (c) => {
    c.found++;
    return 0;
  });
  let kept = 0;
  for (const [id, c] of candidates) {
    if (c.found !== c.seg.live || kept >= maxSegments) candidates.delete(id);
    else kept++;
  }
  // A candidate with an unreadable record is left alone: moving only part of it would leave
  // old copies that a restart cannot tell from the new ones.
  forEachTailRef(store, candidates, (c, ref) => {
    if (store.reader.readWithRaw(c.seg.id, c.seg.path, refOffset(ref)) === null) candidates.delete(c.seg.id);
    return 0;
  });
  if (candidates.size === 0) return 0;
  const copies: number[] = [];
  forEachTailRef(store, candidates, (c, ref, delivered) => {
    copies.push(store.appendRaw(store.reader.readWithRaw(c.seg.id, c.seg.path, refOffset(ref))!.raw, delivered));
    return 0;
  });
  // The copies must be readable from their file at once (paging reads files) and safe before the
  // refs move; the old segments are deleted after a later flush.
  if (!store.syncPendingNow()) {
    // The copies were given up with the segment they were in; nothing refers to them.
    for (const ref of copies) store.markDead(ref);
    return 0;
  }
  store.faultPoint("compaction-synced");
  let i = 0;
  forEachTailRef(store, candidates, () => copies[i++]!);
  for (const c of candidates.values()) store.retire(c.seg);
  store.stats.segmentsCompacted += candidates.size;
  store.logger.debug("message store segments compacted", { segments: candidates.size });
  return candidates.size;
}

/** Calls `visit` for every tail ref into a candidate segment; a non-zero result replaces the ref. */
function forEachTailRef(store: CompactionTarget, candidates: Map<number, Candidate>, visit: (c: Candidate, ref: number, delivered: boolean) => number): void {
  for (const tail of store.tails()) visitTail(tail, candidates, visit);
}

function visitTail(tail: RefFifo, candidates: Map<number, Candidate>, visit: (c: Candidate, ref: number, delivered: boolean) => number): void {
  for (let i = 0; i < tail.length; i++) {
    const v = tail.at(i);
    const ref = Math.abs(v);
    const c = candidates.get(refSegment(ref));
    if (!c) continue;
    const moved = visit(c, ref, v < 0);
    if (moved !== 0) tail.setAt(i, v < 0 ? -moved : moved);
  }
}
