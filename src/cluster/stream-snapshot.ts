/**
 * A follower's side of a full sync for the streams' files (docs/STREAMS.md, "Replication"): a
 * SNAP_FILE of a stream segment is written as a store file's is (offset 0 rewrites it, a kept
 * file continues at its size), into the stream's directory, created durably; at SNAP_END the
 * stream directories the snapshot wrote are fsynced and every stream file the snapshot did not
 * name goes (a deleted stream, a segment retention dropped, an old leader's own), with sidecars
 * left without their segment and directories left empty.
 */
import { closeSync, existsSync, fdatasyncSync, fsyncSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { streamFileNames } from "./copy-manifest.js";
import { makeDirsDurable, type StreamCopy } from "./stream-copy.js";
import { STREAM_SEGMENT_FILE, STREAM_SIDE_FILE } from "./stream-digests.js";

/** Writes one SNAP_FILE piece of a stream segment or side file. */
export function snapStreamFile(dataDir: string, name: string, offset: number, bytes: Buffer, streams: StreamCopy): void {
  if (!STREAM_SEGMENT_FILE.test(name) && !STREAM_SIDE_FILE.test(name)) throw new Error(`bad stream file name in snapshot: ${name}`);
  // A file the snapshot rewrites or extends is not the one its digest described; a kept one is.
  if (offset === 0 || bytes.length > 0) streams.forgetUnder(name);
  makeDirsDurable(dataDir, dirname(name));
  const fd = openSync(join(dataDir, name), offset === 0 ? "w" : "r+", 0o600);
  try {
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off, offset + off);
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The directories of the stream files the snapshot named are fsynced (their entries are durable). */
export function syncStreamDirs(dataDir: string, named: ReadonlySet<string>): void {
  const dirs = new Set<string>();
  for (const name of named) if (name.startsWith("streams/")) dirs.add(dirname(name));
  for (const d of dirs) {
    const fd = openSync(join(dataDir, d), "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

/** After a snapshot: stream files it did not name are not the leader's, and go. */
export function removeUnnamedStreamFiles(dataDir: string, named: ReadonlySet<string>, streams: StreamCopy): void {
  for (const name of streamFileNames(dataDir)) {
    if (named.has(name)) continue;
    streams.forgetUnder(name);
    rmSync(join(dataDir, name), { force: true });
  }
  const root = join(dataDir, "streams");
  if (!existsSync(root)) return;
  for (const id of readdirSync(root)) {
    const dir = join(root, id);
    let files: string[];
    try {
      files = readdirSync(dir);
    } catch {
      continue;
    }
    const segments = new Set(files.filter((f) => f.endsWith(".segment")));
    if (segments.size === 0 && !files.some((f) => named.has(`streams/${id}/${f}`))) {
      streams.forgetUnder(`streams/${id}`);
      rmSync(dir, { recursive: true, force: true });
      continue;
    }
    // Side files the snapshot did not name; sidecars (and temporary files) whose segment is gone.
    for (const f of files) {
      if (f.endsWith(".segment") || named.has(`streams/${id}/${f}`)) continue;
      if (!segments.has(f.replace(/\.sha256(\.tmp-.*)?$/, ""))) rmSync(join(dir, f), { force: true });
    }
  }
}
