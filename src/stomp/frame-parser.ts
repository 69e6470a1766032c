/**
 * The incremental STOMP frame reader: bytes in, frames out. Between frames it skips EOLs (the
 * heart-beats of STOMP 1.1+); a frame is a command line, header lines up to an empty line, and a
 * body ended by NUL — read by content-length when the header is present (so a body may hold
 * NULs), else up to the first NUL. Lines end in LF or CR LF.
 *
 * Only a frame split across reads is kept back (and joined with the next read); a whole frame's
 * body is a slice of the read it came in. Limits bound what an unterminated or hostile frame
 * can make the broker hold: the header section (bytes and count) and the body.
 */
import { unescapeHeader } from "./header-escaping.js";
import type { StompFrame, StompVersion } from "./stomp-frame.js";

export interface FrameLimits {
  /** Bytes of a command line plus headers. */
  readonly maxHeaderBytes: number;
  readonly maxHeaders: number;
  readonly maxBodyBytes: number;
}

export interface FrameSink {
  frame(f: StompFrame): void;
  heartbeat(): void;
  /** Malformed input: the connection answers ERROR and closes; nothing more is parsed. */
  malformed(message: string, detail: string): void;
  /** False once the connection closed (frames behind it are not parsed). */
  readonly isReading: boolean;
}

const LF = 10;
const CR = 13;
const NUL = 0;

export class FrameParser {
  private pending: Buffer | null = null;
  private failed = false;
  /** Header escaping follows the negotiated version (CONNECT itself is never unescaped). */
  version: StompVersion = "1.0";

  constructor(
    private readonly sink: FrameSink,
    public limits: FrameLimits,
  ) {}

  /** Bytes held back for a frame not yet complete. */
  get buffered(): number {
    return this.pending === null ? 0 : this.pending.length;
  }

  push(chunk: Buffer): void {
    if (this.failed) return;
    const buf = this.pending === null ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = null;
    let at = 0;
    const sink = this.sink;
    while (at < buf.length && sink.isReading && !this.failed) {
      const b = buf[at]!;
      if (b === LF) {
        at++;
        sink.heartbeat();
        continue;
      }
      if (b === CR && at + 1 < buf.length && buf[at + 1] === LF) {
        at += 2;
        sink.heartbeat();
        continue;
      }
      const next = this.frameAt(buf, at);
      if (next < 0) break;
      at = next;
    }
    if (at < buf.length && !this.failed && sink.isReading) this.pending = buf.subarray(at);
  }

  /** Parses one frame at `at`; returns where the next begins, or -1 when the frame is incomplete (or bad). */
  private frameAt(buf: Buffer, at: number): number {
    const limits = this.limits;
    const headerEnd = endOfHeaders(buf, at);
    if (headerEnd === -1) {
      if (buf.length - at > limits.maxHeaderBytes) this.fail("Invalid frame", `Headers larger than ${limits.maxHeaderBytes} bytes`);
      return -1;
    }
    if (headerEnd.bodyStart - at > limits.maxHeaderBytes) return this.fail("Invalid frame", `Headers larger than ${limits.maxHeaderBytes} bytes`);
    const text = buf.toString("utf8", at, headerEnd.headersEnd);
    let nl = text.indexOf("\n");
    if (nl < 0) nl = text.length;
    const command = trimCr(text.slice(0, nl));
    const headers = new Map<string, string>();
    const escaped = command !== "CONNECT" && command !== "STOMP" && command !== "CONNECTED";
    let count = 0;
    let pos = nl + 1;
    while (pos < text.length) {
      let end = text.indexOf("\n", pos);
      if (end < 0) end = text.length;
      const line = trimCr(text.slice(pos, end));
      pos = end + 1;
      if (line.length === 0) continue;
      if (++count > limits.maxHeaders) return this.fail("Invalid frame", `More than ${limits.maxHeaders} headers`);
      const colon = line.indexOf(":");
      if (colon < 0) return this.fail("Invalid frame", `Header without a colon: "${line.slice(0, 100)}"`);
      let name: string | null = line.slice(0, colon);
      let value: string | null = line.slice(colon + 1);
      if (escaped) {
        name = unescapeHeader(name, this.version);
        value = unescapeHeader(value, this.version);
        if (name === null || value === null) return this.fail("Invalid frame", `Undefined escape sequence in header "${line.slice(0, 100)}"`);
      }
      if (!headers.has(name)) headers.set(name, value);
    }
    const start = headerEnd.bodyStart;
    const declared = headers.get("content-length");
    let end: number;
    if (declared !== undefined) {
      const n = Number(declared);
      if (declared === "" || !Number.isInteger(n) || n < 0) return this.fail("Invalid frame", `Invalid content-length "${declared}"`);
      if (n > limits.maxBodyBytes) return this.fail("Invalid frame", `Body larger than ${limits.maxBodyBytes} bytes`);
      if (buf.length < start + n + 1) return -1;
      end = start + n;
      if (buf[end] !== NUL) return this.fail("Invalid frame", "Frame not terminated by NUL after content-length bytes");
    } else {
      end = buf.indexOf(NUL, start);
      if (end < 0) {
        if (buf.length - start > limits.maxBodyBytes) this.fail("Invalid frame", `Body larger than ${limits.maxBodyBytes} bytes`);
        return -1;
      }
    }
    this.sink.frame({ command, headers, body: buf.subarray(start, end) });
    return end + 1;
  }

  private fail(message: string, detail: string): -1 {
    this.failed = true;
    this.pending = null;
    this.sink.malformed(message, detail);
    return -1;
  }
}

function trimCr(s: string): string {
  return s.length > 0 && s.charCodeAt(s.length - 1) === CR ? s.slice(0, -1) : s;
}

/** The end of the header section (the empty line) from `at`: where the header text ends and the body begins; -1 if not yet read. */
function endOfHeaders(buf: Buffer, at: number): { headersEnd: number; bodyStart: number } | -1 {
  let i = buf.indexOf(LF, at);
  while (i >= 0) {
    const j = i + 1;
    if (j < buf.length && buf[j] === LF) return { headersEnd: i, bodyStart: j + 1 };
    if (j + 1 < buf.length && buf[j] === CR && buf[j + 1] === LF) return { headersEnd: i, bodyStart: j + 2 };
    i = buf.indexOf(LF, j);
  }
  return -1;
}
