/**
 * A follower's side of the audit trail's replication (docs/CLUSTERING.md, Replication): the
 * leader's AUDIT_APPEND frames append the same bytes to the same file under `audit/` (synced at
 * once: audit writes are few), AUDIT_DROP removes a file its retention dropped. A node that
 * becomes leader reads these files as its own trail.
 */
import { closeSync, fdatasyncSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { AUDIT_DIR, AUDIT_FILE } from "../audit/audit-log.js";
import { readName } from "./replication-frames.js";

export function applyAuditFrame(dataDir: string, append: boolean, payload: Buffer): void {
  const { name, rest } = readName(payload);
  const base = name.slice(AUDIT_DIR.length + 1);
  if (!name.startsWith(`${AUDIT_DIR}/`) || !AUDIT_FILE.test(base)) throw new Error(`bad audit file name: ${name}`);
  const path = join(dataDir, name);
  if (!append) {
    rmSync(path, { force: true });
    return;
  }
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, "a", 0o600);
  try {
    for (let off = 0; off < rest.length; ) off += writeSync(fd, rest, off, rest.length - off);
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
