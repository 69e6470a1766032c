/**
 * Reads stored records back for paging in: one read-only descriptor and one read window per
 * segment. A window covers many consecutive records (a queue's records are in append order), so
 * paging in a run of small messages costs one pread per window, not one per message; the
 * messages' bodies are slices of the window.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { readRecord, type DecodedRecord } from "./message-record.js";

const WINDOW_BYTES = 256 * 1024;

interface Window {
  fd: number;
  start: number;
  buf: Buffer;
}

export class SegmentReader {
  private readonly windows = new Map<number, Window>();

  /** The record at `offset` of segment `path`, or null when it cannot be read whole and intact. */
  read(segmentId: number, path: string, offset: number): DecodedRecord | null {
    return this.readWithRaw(segmentId, path, offset)?.record ?? null;
  }

  /** The record and its whole encoded bytes (for copying it elsewhere). */
  readWithRaw(segmentId: number, path: string, offset: number): { record: DecodedRecord; raw: Buffer } | null {
    let w = this.windows.get(segmentId);
    if (!w) {
      w = { fd: openSync(path, "r"), start: 0, buf: Buffer.alloc(0) };
      this.windows.set(segmentId, w);
    }
    let at = offset - w.start;
    let r = w.buf.length > 0 && at >= 0 ? readRecord(w.buf, at) : null;
    if (r === null || r.status === "torn" || r.status === "end") {
      this.load(w, offset, WINDOW_BYTES);
      at = 0;
      r = readRecord(w.buf, 0);
      if (r.status === "torn" && w.buf.length >= 8) {
        this.load(w, offset, 8 + w.buf.readUInt32LE(0));
        r = readRecord(w.buf, 0);
      }
    }
    return r.status === "ok" ? { record: r.record, raw: w.buf.subarray(at, r.next) } : null;
  }

  /** A deleted segment's descriptor is closed. */
  forget(segmentId: number): void {
    const w = this.windows.get(segmentId);
    if (!w) return;
    closeSync(w.fd);
    this.windows.delete(segmentId);
  }

  closeAll(): void {
    for (const id of [...this.windows.keys()]) this.forget(id);
  }

  private load(w: Window, offset: number, bytes: number): void {
    // A fresh buffer each time: messages paged in earlier keep slices of the old one.
    const buf = Buffer.allocUnsafe(bytes);
    const n = readSync(w.fd, buf, 0, bytes, offset);
    w.start = offset;
    w.buf = buf.subarray(0, n);
  }
}
