/**
 * Digests of sealed segments, kept as the bytes are written (docs/CLUSTERING.md, "Catch-up"), so
 * a returning follower and the leader compare digests instead of reading whole copies. Only in a
 * cluster: the leader feeds it from the store's replication tap, a follower from the stream it
 * applies; a single node runs none of this.
 *
 * A segment file only grows while it is the store's current one; once a higher segment is
 * written to, it is sealed and never changes again (until it is deleted whole). A segment hashed
 * from its first byte gets, once sealed and fsynced, a sidecar `NNNNNNNN.seg.sha256` holding its
 * size and SHA-256, written atomically. Invariants: a sidecar is written only after every byte it
 * covers is on disk; it is removed when its segment is deleted, rewritten (a snapshot) or reused
 * (a new segment with the same id); a reader trusts it only when the file's size equals the size
 * it names. (A disk that silently changes bytes under a valid sidecar is outside what this
 * detects, as it is for the store's own reads.)
 */
import { createHash, type Hash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "../store/atomic-file.js";
import { segmentFileName } from "../store/segment.js";

export interface SealedDigest {
  readonly size: number;
  readonly sha256: string;
}

interface Running {
  readonly hash: Hash;
  size: number;
}

export const sidecarName = (segment: number): string => `${segmentFileName(segment, "seg")}.sha256`;

/** The sidecar of a segment file, when there is one and it covers exactly `fileSize` bytes. */
export function readSidecar(messagesDir: string, segment: number, fileSize: number): SealedDigest | null {
  try {
    const d = JSON.parse(readFileSync(join(messagesDir, sidecarName(segment)), "utf8")) as Partial<SealedDigest>;
    return typeof d.size === "number" && d.size === fileSize && typeof d.sha256 === "string" ? { size: d.size, sha256: d.sha256 } : null;
  } catch {
    return null;
  }
}

export class SegmentDigests {
  /** Segments hashed from byte 0 and not sealed-and-saved yet. */
  private readonly running = new Map<number, Running>();
  /** Segments seen from somewhere past byte 0: never hashed. */
  private readonly partial = new Set<number>();
  private highest = 0;

  constructor(private readonly messagesDir: string) {}

  /**
   * Bytes appended to `segment`; `emptyBefore` says (on first sight only) whether the file held
   * nothing before them. Called per write batch, never per message.
   */
  appended(segment: number, pieces: readonly Buffer[], emptyBefore: () => boolean): void {
    let r = this.running.get(segment);
    if (r === undefined) {
      if (this.partial.has(segment)) return this.advance(segment);
      if (!emptyBefore()) {
        this.partial.add(segment);
        return this.advance(segment);
      }
      // A new segment: a sidecar left by an earlier segment of the same id must not survive it.
      rmSync(join(this.messagesDir, sidecarName(segment)), { force: true });
      r = { hash: createHash("sha256"), size: 0 };
      this.running.set(segment, r);
    }
    for (const p of pieces) {
      r.hash.update(p);
      r.size += p.length;
    }
    this.advance(segment);
  }

  /** The segments sealed so far (hashed whole): what a sync that starts now will make durable. */
  sealed(): number[] {
    const out: number[] = [];
    for (const id of this.running.keys()) if (id < this.highest) out.push(id);
    return out;
  }

  /** Every byte of `segments` is fsynced: their sidecars are written. */
  save(segments: readonly number[]): void {
    for (const id of segments) {
      const r = this.running.get(id);
      if (r === undefined) continue;
      this.running.delete(id);
      writeFileAtomicSync(join(this.messagesDir, sidecarName(id)), JSON.stringify({ size: r.size, sha256: r.hash.digest("hex") }));
    }
  }

  /** The segment was deleted or is being rewritten: no digest of it holds any more. */
  forget(segment: number): void {
    this.running.delete(segment);
    this.partial.add(segment);
    rmSync(join(this.messagesDir, sidecarName(segment)), { force: true });
  }

  /** A write was given up (the leader steps down): running digests may cover bytes that are gone. */
  clear(): void {
    for (const id of this.running.keys()) this.partial.add(id);
    this.running.clear();
  }

  private advance(segment: number): void {
    if (segment > this.highest) this.highest = segment;
  }
}
