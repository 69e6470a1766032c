/**
 * Atomic file replacement: write a temporary file beside the target, fsync it, rename it over
 * the target, fsync the directory. A crash at any moment leaves either the old file or the new
 * one, never a half-written mix; a failure (ENOSPC, EIO) throws with the old file untouched and
 * the temporary file removed.
 */
import { closeSync, fsyncSync, openSync, renameSync, writeSync, rmSync } from "node:fs";
import { dirname } from "node:path";

let counter = 0;

/** `beforeRename` runs once the temporary file is complete and synced (crash tests stop there). */
export function writeFileAtomicSync(path: string, data: string | Buffer, beforeRename?: () => void): void {
  const tmp = `${path}.tmp-${process.pid}-${counter++}`;
  const fd = openSync(tmp, "w", 0o600);
  try {
    const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  beforeRename?.();
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  const dir = openSync(dirname(path), "r");
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
