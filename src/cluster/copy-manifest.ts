/**
 * Incremental catch-up (docs/CLUSTERING.md, "Full sync"): what a follower already holds, so the
 * leader sends only what it lacks. The store's files only ever grow while a leader writes them
 * (segments and side files are appended to; a cut-back happens only at boot or on a failed
 * write, which fences the leader), so if the first n bytes of a follower's file hash like the first
 * n bytes of the leader's, the follower keeps them and receives the rest. Any other difference
 * (a deposed leader's unreplicated tail, a file recovery cut back) makes the hashes differ and the
 * whole file is sent again: the copy ends byte for byte equal to the leader's either way.
 *
 * Stream segments (src/store/stream) are listed and compared the same way: they too only grow
 * while their stream writes them, and are deleted whole.
 *
 * Sealed segments are not read at all when both sides hold a sidecar digest of them
 * (segment-digests.ts): the follower describes such a file by its sidecar, and the leader keeps it
 * when its own sidecar names the same size and digest. Everything else is hashed as before.
 */
import { AUDIT_DIR, AUDIT_FILE } from "../audit/audit-log.js";
import { createHash } from "node:crypto";
import { closeSync, existsSync, fstatSync, openSync, read, readdirSync } from "node:fs";
import { join } from "node:path";
import { DEFINITIONS_FILE } from "../store/definitions-file.js";
import { readSidecar } from "./segment-digests.js";
import { readStreamSidecar, STREAM_SEGMENT_FILE, STREAM_SIDE_FILE } from "./stream-digests.js";

/** A store file the follower holds: its path relative to the data dir, its size and SHA-256. */
export interface HeldFile {
  readonly name: string;
  readonly size: number;
  readonly sha256: string;
}

const STORE_FILE = /^\d{8}\.(seg|acks)$/;
const SEGMENT_FILE = /^messages\/(\d{8})\.seg$/;

/** What a catch-up read: bytes hashed, and sealed segments trusted by their digests instead. */
export interface CatchUpCount {
  hashedBytes: number;
  trustedSegments: number;
}

/** A sealed segment's digest from its sidecar (a store or a stream segment), when it covers exactly `size` bytes. */
function sealedDigest(dataDir: string, name: string, size: number): string | null {
  if (STREAM_SEGMENT_FILE.test(name)) return readStreamSidecar(dataDir, name, size)?.sha256 ?? null;
  const m = SEGMENT_FILE.exec(name);
  return m ? (readSidecar(join(dataDir, "messages"), Number(m[1]), size)?.sha256 ?? null) : null;
}

/** A file name a manifest may list: a store file or a stream segment. */
function replicatedFile(name: string): boolean {
  return (name.startsWith("messages/") && STORE_FILE.test(name.slice("messages/".length))) || STREAM_SEGMENT_FILE.test(name);
}
const CHUNK = 1024 * 1024;

/** The store files under `dataDir/messages` (definitions.json is always sent whole). */
export function storeFileNames(dataDir: string): string[] {
  const dir = join(dataDir, "messages");
  return existsSync(dir) ? readdirSync(dir).filter((f) => STORE_FILE.test(f)).sort().map((f) => `messages/${f}`) : [];
}

/** The streams' segment files (src/store/stream), "streams/<id>/<first offset>.segment". */
export function streamFileNames(dataDir: string): string[] {
  return streamFiles(dataDir, STREAM_SEGMENT_FILE);
}

/** The streams' side files ("streams/<id>/<name>.json"): sent whole by a snapshot, like definitions.json. */
export function streamSideFileNames(dataDir: string): string[] {
  return streamFiles(dataDir, STREAM_SIDE_FILE);
}

function streamFiles(dataDir: string, pattern: RegExp): string[] {
  const root = join(dataDir, "streams");
  if (!existsSync(root)) return [];
  const out: string[] = [];
  for (const id of readdirSync(root).sort()) {
    let files: string[];
    try {
      files = readdirSync(join(root, id));
    } catch {
      continue; // not a directory, or gone meanwhile
    }
    for (const f of files.sort()) if (pattern.test(`streams/${id}/${f}`)) out.push(`streams/${id}/${f}`);
  }
  return out;
}

/** Every file the manifest and the snapshot cover: the store's files, then the streams'. */
export function replicatedFileNames(dataDir: string): string[] {
  return [...storeFileNames(dataDir), ...streamFileNames(dataDir)];
}

/**
 * Node state files at the data dir's root, sent whole like definitions.json (MQTT's
 * mqtt-retained.json and mqtt-qos2-state.json): "<name>.json", a plain name, not definitions.json.
 */
export function isNodeFileName(name: string): boolean {
  return name.endsWith(".json") && name !== DEFINITIONS_FILE && !name.startsWith(".") && !name.includes("/") && !name.includes("\\") && name.length > 5;
}

export function nodeFileNames(dataDir: string): string[] {
  return existsSync(dataDir) ? readdirSync(dataDir).filter(isNodeFileName).sort() : [];
}

/** The audit trail's files under `dataDir/audit` ("audit/audit-NNNNNNNN.jsonl"). */
export function auditFileNames(dataDir: string): string[] {
  const dir = join(dataDir, AUDIT_DIR);
  return existsSync(dir) ? readdirSync(dir).filter((f) => AUDIT_FILE.test(f)).sort().map((f) => `${AUDIT_DIR}/${f}`) : [];
}

/** SHA-256 of the first `length` bytes of an open file, read in pieces off the event loop. */
export async function digestPrefix(fd: number, length: number): Promise<string> {
  const hash = createHash("sha256");
  const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(length, 1)));
  for (let pos = 0; pos < length; ) {
    const n = await new Promise<number>((resolve, reject) => read(fd, buf, 0, Math.min(buf.length, length - pos), pos, (err, got) => (err ? reject(err) : resolve(got))));
    if (n === 0) throw new Error("file shorter than expected");
    hash.update(buf.subarray(0, n));
    pos += n;
  }
  return hash.digest("hex");
}

/** What this node holds of the store, to send the leader before a sync. */
export async function heldFiles(dataDir: string, count: CatchUpCount = { hashedBytes: 0, trustedSegments: 0 }): Promise<HeldFile[]> {
  const held: HeldFile[] = [];
  for (const name of replicatedFileNames(dataDir)) {
    let fd: number;
    try {
      fd = openSync(join(dataDir, name), "r");
    } catch {
      continue; // gone meanwhile: simply not held
    }
    try {
      const size = fstatSync(fd).size;
      const sealed = sealedDigest(dataDir, name, size);
      if (sealed !== null) count.trustedSegments++;
      else count.hashedBytes += size;
      held.push({ name, size, sha256: sealed ?? (await digestPrefix(fd, size)) });
    } finally {
      closeSync(fd);
    }
  }
  return held;
}

/**
 * On the leader: how many bytes of each file the follower may keep (files not listed are sent
 * whole). Only files the leader holds at least as much of, with the same leading bytes.
 */
export async function keptBytes(dataDir: string, held: readonly HeldFile[], count: CatchUpCount = { hashedBytes: 0, trustedSegments: 0 }): Promise<Map<string, number>> {
  const keep = new Map<string, number>();
  for (const h of held) {
    // A follower's list is checked like any input: only store files, plain sizes and digests.
    if (typeof h.name !== "string" || !replicatedFile(h.name)) continue;
    if (!Number.isSafeInteger(h.size) || h.size < 0 || typeof h.sha256 !== "string") continue;
    let fd: number;
    try {
      fd = openSync(join(dataDir, h.name), "r");
    } catch {
      continue;
    }
    try {
      const size = fstatSync(fd).size;
      // Both copies whole and sealed: the digests decide without reading (equal sizes, same sidecar digest).
      const sealed = size === h.size ? sealedDigest(dataDir, h.name, size) : null;
      if (sealed !== null) {
        count.trustedSegments++;
        if (sealed === h.sha256) keep.set(h.name, h.size);
        continue;
      }
      if (size < h.size) continue;
      count.hashedBytes += h.size;
      if ((await digestPrefix(fd, h.size)) === h.sha256) keep.set(h.name, h.size);
    } finally {
      closeSync(fd);
    }
  }
  return keep;
}
