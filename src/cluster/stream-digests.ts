/**
 * Digests of sealed stream segments (docs/STREAMS.md, "Replication"), the streams' counterpart of
 * segment-digests.ts: a returning follower and the leader compare a sealed stream segment by its
 * digest instead of reading it. The leader feeds it from its replication tap, a follower from
 * the STREAM_APPEND frames it applies; a single node runs none of this.
 *
 * A stream segment only grows while it is its stream's newest; once the stream starts a new
 * segment (a chunk placed at position 0 of another file in the same directory), it is sealed and
 * never changes until retention or the stream's deletion removes it whole. A segment hashed from
 * its first byte gets, once sealed and fsynced, a sidecar `<file>.sha256` ({"size","sha256"},
 * written atomically; the chunk log reads only `*.segment` files). Invariants as for the store's
 * sidecars: written only after every byte it covers is on disk, removed with its segment or when
 * a snapshot rewrites it, trusted only when the file's size equals the size it names.
 */
import { createHash, type Hash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomicSync } from "../store/atomic-file.js";
import type { SealedDigest } from "./segment-digests.js";

/** A stream segment file relative to the data dir, or a whole stream's directory. */
export const STREAM_SEGMENT_FILE = /^streams\/[0-9a-f]{32}\/\d{20}\.segment$/;
export const STREAM_PATH = /^streams\/[0-9a-f]{32}(\/\d{20}\.segment)?$/;
/** A stream's side file (chunk-log.ts, SIDE_FILE_NAME): sent whole, never compared. */
export const STREAM_SIDE_FILE = /^streams\/[0-9a-f]{32}\/[a-z][a-z0-9-]*\.json$/;

interface Running {
  readonly hash: Hash;
  size: number;
  sealed: boolean;
}

/** The sidecar of stream segment `file` (relative to `dataDir`), when it covers exactly `fileSize` bytes. */
export function readStreamSidecar(dataDir: string, file: string, fileSize: number): SealedDigest | null {
  try {
    const d = JSON.parse(readFileSync(join(dataDir, `${file}.sha256`), "utf8")) as Partial<SealedDigest>;
    return typeof d.size === "number" && d.size === fileSize && typeof d.sha256 === "string" ? { size: d.size, sha256: d.sha256 } : null;
  } catch {
    return null;
  }
}

export class StreamDigests {
  /** Segments hashed from byte 0 whose sidecar is not saved yet, by file name. */
  private readonly running = new Map<string, Running>();

  constructor(private readonly dataDir: string) {}

  /** A chunk's bytes written at `position` of `file`; called per chunk, never per message. */
  appended(file: string, position: number, pieces: readonly Buffer[]): void {
    let r = this.running.get(file);
    if (position === 0) {
      // A new segment: its stream's other segments are sealed, and an old sidecar of this name goes.
      const dir = dirname(file);
      for (const [name, other] of this.running) if (name !== file && dirname(name) === dir) other.sealed = true;
      rmSync(join(this.dataDir, `${file}.sha256`), { force: true });
      r = { hash: createHash("sha256"), size: 0, sealed: false };
      this.running.set(file, r);
    }
    if (r === undefined) return; // seen from past its first byte: never hashed
    if (r.size !== position) {
      this.running.delete(file);
      return;
    }
    for (const p of pieces) {
      r.hash.update(p);
      r.size += p.length;
    }
  }

  /** The segments sealed so far: what a sync that starts now makes durable. */
  sealed(): string[] {
    const out: string[] = [];
    for (const [name, r] of this.running) if (r.sealed) out.push(name);
    return out;
  }

  /** Every byte of `files` is fsynced: their sidecars are written. */
  save(files: readonly string[]): void {
    for (const name of files) {
      const r = this.running.get(name);
      if (r === undefined) continue;
      this.running.delete(name);
      writeFileAtomicSync(join(this.dataDir, `${name}.sha256`), JSON.stringify({ size: r.size, sha256: r.hash.digest("hex") }));
    }
  }

  /** A segment, or a whole stream ("streams/<id>"), is deleted or rewritten: no digest of it holds. */
  forget(path: string): void {
    for (const name of [...this.running.keys()]) if (name === path || name.startsWith(`${path}/`)) this.running.delete(name);
    if (STREAM_SEGMENT_FILE.test(path)) rmSync(join(this.dataDir, `${path}.sha256`), { force: true });
  }

  /** A write was given up: running digests may cover bytes that are gone. */
  clear(): void {
    this.running.clear();
  }
}
