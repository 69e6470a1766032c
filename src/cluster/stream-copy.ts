/**
 * A follower's copy of the leader's streams (docs/STREAMS.md, "Replication"): STREAM_APPEND
 * writes a chunk's bytes at the same position of the same segment file, STREAM_DROP deletes a
 * segment (retention) or a whole stream, STREAM_FILE replaces a side file (a stream's tracking)
 * atomically. Writes are synchronous, in arrival order; the fsync is
 * the follower's (replication-follower.ts): each written descriptor is reported dirty and synced
 * with the store's files before the batch is acknowledged. A segment file or stream directory
 * created here has its directory entry fsynced at once, so a file an acknowledged batch wrote
 * into cannot vanish in a crash (segments are created rarely: one per x-stream-max-segment-size).
 */
import { closeSync, fsyncSync, mkdirSync, openSync, rmSync, writeSync, existsSync } from "node:fs";
import { writeFileAtomicSync } from "../store/atomic-file.js";
import { dirname, join } from "node:path";
import { readName } from "./replication-frames.js";
import { STREAM_PATH, STREAM_SEGMENT_FILE, STREAM_SIDE_FILE, StreamDigests } from "./stream-digests.js";

export class StreamCopy {
  /** Open segment files, by name relative to the data dir. */
  private readonly fds = new Map<string, number>();
  readonly digests: StreamDigests;

  constructor(
    private readonly dataDir: string,
    /** A descriptor was written to: it must be fsynced before the batch is acknowledged. */
    private readonly written: (fd: number) => void,
    /** A descriptor is no longer needed (closed now, or after a running fsync). */
    private readonly release: (fd: number) => void,
  ) {
    this.digests = new StreamDigests(dataDir);
  }

  /** STREAM_APPEND: `payload` is the file name, f64 position, the chunk's bytes. */
  append(payload: Buffer): void {
    const { name, rest } = readName(payload);
    if (!STREAM_SEGMENT_FILE.test(name)) throw new Error(`bad stream file name: ${name}`);
    const position = rest.readDoubleLE(0);
    const bytes = rest.subarray(8);
    this.digests.appended(name, position, [bytes]);
    const fd = this.open(name);
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off, position + off);
    this.written(fd);
  }

  /** STREAM_FILE: a side file replaced whole, atomically (synced before it replaces the old one). */
  replace(payload: Buffer): void {
    const { name, rest } = readName(payload);
    if (!STREAM_SIDE_FILE.test(name)) throw new Error(`bad stream side file name: ${name}`);
    makeDirsDurable(this.dataDir, dirname(name));
    writeFileAtomicSync(join(this.dataDir, name), rest);
  }

  /** STREAM_DROP: a segment file, or a whole stream's directory. */
  drop(payload: Buffer): void {
    const { name } = readName(payload);
    if (!STREAM_PATH.test(name)) throw new Error(`bad stream path: ${name}`);
    this.forgetUnder(name);
    rmSync(join(this.dataDir, name), { recursive: true, force: true });
  }

  /** A snapshot rewrites or removes `name` (a file or a stream directory): its descriptors and digests go. */
  forgetUnder(name: string): void {
    this.digests.forget(name);
    for (const [file, fd] of [...this.fds]) {
      if (file !== name && !file.startsWith(`${name}/`)) continue;
      this.fds.delete(file);
      this.release(fd);
    }
  }

  close(): void {
    for (const fd of this.fds.values()) this.release(fd);
    this.fds.clear();
  }

  /** Positional writes need a descriptor without O_APPEND. A new file's directory entry is made durable. */
  private open(name: string): number {
    let fd = this.fds.get(name);
    if (fd !== undefined) return fd;
    const path = join(this.dataDir, name);
    const created = !existsSync(path);
    if (created) makeDirsDurable(this.dataDir, dirname(name));
    fd = openSync(path, created ? "w+" : "r+", 0o600);
    if (created) syncDir(dirname(path));
    this.fds.set(name, fd);
    return fd;
  }
}

/** Creates `rel` (e.g. "streams/<id>") under `root`, fsyncing each parent whose entries changed. */
export function makeDirsDurable(root: string, rel: string): void {
  let at = root;
  for (const part of rel.split("/")) {
    const next = join(at, part);
    if (!existsSync(next)) {
      mkdirSync(next, { mode: 0o700 });
      syncDir(at);
    }
    at = next;
  }
}

function syncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
