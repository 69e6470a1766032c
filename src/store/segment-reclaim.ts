/**
 * Which segments the message store may delete, and when. A segment whose records are all dead
 * goes (with its side file) once it is no longer the one being appended to and nothing of it waits
 * for a write; a segment online compaction copied out (retire) goes only after a flush has
 * written and synced the copies, so a crash in between still finds every live record somewhere.
 */
import type { Segment } from "./segment.js";

/** What deleting a segment must also forget: the store's maps, its reader, a cluster's followers. */
export interface ReclaimHost {
  readonly currentSegment: Segment | null;
  /** Deletes `seg`'s files and every reference to it. */
  forgetSegment(seg: Segment): void;
}

export class SegmentReclaim {
  private readonly reclaimable = new Set<Segment>();
  private retiring: Array<{ seg: Segment; after: number }> = [];

  /** `seg`'s records may all be dead: it is looked at after the next flush. */
  add(seg: Segment): void {
    this.reclaimable.add(seg);
  }

  /** `seg`'s live records were copied up to append position `after`: it goes once a flush wrote through there. */
  retire(seg: Segment, after: number): void {
    this.retiring.push({ seg, after });
  }

  /** A flush wrote and synced everything up to append position `through` (`ok`: it failed nothing). */
  flushed(ok: boolean, through: number): void {
    if (!ok || this.retiring.length === 0) return;
    for (const r of this.retiring) if (r.after <= through) this.reclaimable.add(r.seg);
    this.retiring = this.retiring.filter((r) => r.after > through);
  }

  /** Deletes the segments whose records are all dead (never the one being appended to). */
  run(host: ReclaimHost): void {
    for (const seg of this.reclaimable) {
      if (seg === host.currentSegment || seg.live > 0) {
        if (seg.live > 0) this.reclaimable.delete(seg);
        continue;
      }
      if (seg.hasPendingData) continue;
      this.reclaimable.delete(seg);
      host.forgetSegment(seg);
    }
  }
}
