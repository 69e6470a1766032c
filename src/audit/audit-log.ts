/**
 * The audit trail's storage: append-only JSON-lines files in `<data dir>/audit/`
 * (audit-00000001.jsonl, …), written in batches (one write and one fdatasync per
 * `syncIntervalMs`), a new file past `fileSizeLimit`, and retention that drops whole files,
 * oldest first, while the files exceed `maxBytes` or once a file's newest entry is older than
 * `maxAgeMs`. Every retained entry is also held in memory (the API lists from there); with no
 * directory (an in-memory broker) only memory is used, under the same limits per entry.
 *
 * A crash can leave a last line half-written: such a line is skipped when the files are read,
 * and writing resumes in a new file so no later line is glued to it.
 *
 * In a cluster the leader's `tap` is told every append and every dropped file, and followers
 * apply the same bytes to the same files (docs/CLUSTERING.md).
 */
import { closeSync, fdatasyncSync, fstatSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { AuditEntry } from "./audit-entry.js";

export const AUDIT_DIR = "audit";
export const AUDIT_FILE = /^audit-(\d{8})\.jsonl$/;

export interface AuditRetention {
  readonly maxBytes: number;
  readonly maxAgeMs: number;
  readonly fileSizeLimit: number;
  readonly syncIntervalMs: number;
}

/** A cluster leader's replication of the audit files. */
export interface AuditTap {
  /** `bytes` were appended to `file` ("audit/audit-NNNNNNNN.jsonl") and synced. */
  auditAppended(file: string, bytes: Buffer): void;
  auditDropped(file: string): void;
}

interface AuditFile {
  readonly name: string;
  readonly number: number;
  size: number;
  /** How many of the in-memory entries (the oldest ones) this file holds. */
  count: number;
  /** The newest entry's time (ms). */
  newest: number;
}

const fileName = (n: number): string => `audit-${String(n).padStart(8, "0")}.jsonl`;

export class AuditLog {
  private entries: AuditEntry[] = [];
  private readonly files: AuditFile[] = [];
  private pending: string[] = [];
  private pendingEntries = 0;
  private timer: NodeJS.Timeout | null = null;
  private fd: number | null = null;
  /** Bytes held by memory-only entries (no directory). */
  private memoryBytes = 0;
  private readonly memorySizes: number[] = [];
  tap: AuditTap | null = null;
  onWriteError: (err: unknown) => void = () => {};

  /** `dir`: the audit directory, or null to keep entries in memory only. */
  constructor(private readonly dir: string | null, private readonly retention: AuditRetention, private readonly now: () => number = Date.now) {}

  /** Reads the retained files (a half-written last line is skipped). */
  open(): void {
    if (this.dir === null) return;
    mkdirSync(this.dir, { recursive: true });
    const names = readdirSync(this.dir).filter((f) => AUDIT_FILE.test(f)).sort();
    let cleanEnd = true;
    for (const name of names) {
      const text = readFileSync(join(this.dir, name), "utf8");
      const f: AuditFile = { name, number: Number(AUDIT_FILE.exec(name)![1]), size: Buffer.byteLength(text), count: 0, newest: 0 };
      for (const line of text.split("\n")) {
        if (line === "") continue;
        try {
          const e = JSON.parse(line) as AuditEntry;
          this.entries.push(e);
          f.count++;
          f.newest = Math.max(f.newest, e.ts);
        } catch {
          // a line cut by a crash
        }
      }
      cleanEnd = text === "" || text.endsWith("\n");
      this.files.push(f);
    }
    if (!cleanEnd) this.startFile();
    this.applyRetention();
  }

  /** The newest entry's id; 0 when there is none. */
  get lastId(): number {
    return this.entries.length === 0 ? 0 : this.entries[this.entries.length - 1]!.id;
  }

  append(entry: AuditEntry): void {
    this.entries.push(entry);
    const line = JSON.stringify(entry) + "\n";
    if (this.dir === null) {
      const size = Buffer.byteLength(line);
      this.memorySizes.push(size);
      this.memoryBytes += size;
      this.applyRetention();
      return;
    }
    this.pending.push(line);
    this.pendingEntries++;
    this.timer ??= setTimeout(() => this.flush(), this.retention.syncIntervalMs);
  }

  /** The retained entries, oldest first, without those past the age limit. */
  list(): readonly AuditEntry[] {
    const cutoff = this.now() - this.retention.maxAgeMs;
    const first = this.entries.findIndex((e) => e.ts >= cutoff);
    return first <= 0 ? (first === 0 ? this.entries : []) : this.entries.slice(first);
  }

  /** Writes and syncs what is pending (one write, one fdatasync), then applies retention. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0 || this.dir === null) return;
    const bytes = Buffer.from(this.pending.join(""), "utf8");
    const count = this.pendingEntries;
    this.pending = [];
    this.pendingEntries = 0;
    try {
      let f = this.files[this.files.length - 1];
      if (!f || this.fd === null || f.size >= this.retention.fileSizeLimit) f = this.startFile();
      for (let off = 0; off < bytes.length; ) off += writeSync(this.fd!, bytes, off, bytes.length - off);
      fdatasyncSync(this.fd!);
      f.size += bytes.length;
      f.count += count;
      f.newest = this.entries[this.entries.length - 1]!.ts;
      this.tap?.auditAppended(`${AUDIT_DIR}/${f.name}`, bytes);
    } catch (err) {
      this.onWriteError(err);
    }
    this.applyRetention();
  }

  close(): void {
    this.flush();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** Starts the next file (the current one, if any, is left as it is). */
  private startFile(): AuditFile {
    if (this.fd !== null) closeSync(this.fd);
    const last = this.files[this.files.length - 1];
    const number = (last?.number ?? 0) + 1;
    const f: AuditFile = { name: fileName(number), number, size: 0, count: 0, newest: 0 };
    this.fd = openSync(join(this.dir!, f.name), "a", 0o600);
    f.size = fstatSync(this.fd).size;
    this.files.push(f);
    return f;
  }

  /** Drops the oldest files (never the one being written) past the size or age limit. */
  private applyRetention(): void {
    const cutoff = this.now() - this.retention.maxAgeMs;
    if (this.dir === null) {
      // Over the size limit, down to 90% of it: dropping one entry per append would copy the whole
      // array at every append of a full trail.
      let drop = 0;
      const over = this.memoryBytes > this.retention.maxBytes;
      const target = over ? this.retention.maxBytes * 0.9 : this.retention.maxBytes;
      while (drop < this.entries.length && (this.memoryBytes > target || this.entries[drop]!.ts < cutoff)) this.memoryBytes -= this.memorySizes[drop++]!;
      if (drop > 0) {
        this.entries = this.entries.slice(drop);
        this.memorySizes.splice(0, drop);
      }
      return;
    }
    let total = this.files.reduce((n, f) => n + f.size, 0);
    while (this.files.length > 1 && (total > this.retention.maxBytes || this.files[0]!.newest < cutoff)) {
      const f = this.files.shift()!;
      total -= f.size;
      this.entries = this.entries.slice(f.count);
      try {
        rmSync(join(this.dir, f.name), { force: true });
        this.tap?.auditDropped(`${AUDIT_DIR}/${f.name}`);
      } catch (err) {
        this.onWriteError(err);
      }
    }
  }
}
