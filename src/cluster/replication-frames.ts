/**
 * The replication wire format between a leader and a follower (docs/CLUSTERING.md, Replication):
 *   u32 length (of type + payload) | u8 type | payload
 * Payload bytes (segment pieces, file pieces) are written as they are, never copied into a frame.
 */
import type { Socket } from "node:net";

export const enum FrameType {
  /** follower → leader: u16 name length | node name | nonce (rest). See replication-auth.ts. */
  Hello = 1,
  /** leader → follower: u16 name length | file name | f64 offset | bytes. */
  SnapFile = 2,
  /** leader → follower: the snapshot is complete. */
  SnapEnd = 3,
  /** leader → follower: definitions.json content. */
  Defs = 4,
  /** leader → follower: u32 segment | u32 data length | data | acks (rest). */
  Seg = 5,
  /** leader → follower: u32 segment. */
  Delete = 6,
  /** leader → follower: f64 batch | u8 sync. */
  Batch = 7,
  /** follower → leader: f64 batch. */
  Ack = 8,
  /** leader → follower: nonce (32) | the leader's proof (rest). */
  Challenge = 9,
  /** follower → leader: the follower's proof. */
  Proof = 10,
  /** follower → leader, after its proof: JSON list of the store files it holds (copy-manifest.ts). */
  Manifest = 11,
  /** leader → follower: u16 name length | audit file name | bytes appended to it (src/audit). */
  AuditAppend = 12,
  /** leader → follower: u16 name length | audit file name, dropped by retention. */
  AuditDrop = 13,
  /** leader → follower: u16 name length | stream segment file ("streams/<id>/<n>.segment") | f64 position | a chunk's bytes. */
  StreamAppend = 14,
  /** leader → follower: u16 name length | a stream segment file, or a whole stream ("streams/<id>"), deleted. */
  StreamDrop = 15,
  /** leader → follower: u16 name length | a stream side file ("streams/<id>/<name>.json") | its whole new content. */
  StreamFile = 16,
  /** leader → follower: u16 name length | a stream ("streams/<id>") | f64 the offset after its last committed message. */
  StreamCommit = 17,
  /** leader → follower: u16 name length | a node state file at the data dir's root ("<name>.json", copy-manifest.ts) | its whole new content. */
  NodeFile = 18,
}

/** Writes one frame: a small header buffer and the payload pieces, corked into one send. */
export function sendFrame(socket: Socket, type: FrameType, head: Buffer | null, pieces: readonly Buffer[] = []): void {
  let len = 1 + (head?.length ?? 0);
  for (const p of pieces) len += p.length;
  const h = Buffer.allocUnsafe(5);
  h.writeUInt32LE(len, 0);
  h[4] = type;
  // Corked: a segment's pieces are one small Buffer per record, and a write() system call for each
  // cost the leader most of its time; uncork hands them all to one writev.
  socket.cork();
  socket.write(h);
  if (head) socket.write(head);
  for (const p of pieces) if (p.length > 0) socket.write(p);
  socket.uncork();
}

export function u32(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32LE(n, 0);
  return b;
}

export function f64(n: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeDoubleLE(n, 0);
  return b;
}

export function nameHead(name: string, extra: Buffer | null = null): Buffer {
  const n = Buffer.from(name, "utf8");
  const b = Buffer.allocUnsafe(2 + n.length + (extra?.length ?? 0));
  b.writeUInt16LE(n.length, 0);
  n.copy(b, 2);
  if (extra) extra.copy(b, 2 + n.length);
  return b;
}

export function readName(payload: Buffer): { name: string; rest: Buffer } {
  const n = payload.readUInt16LE(0);
  return { name: payload.toString("utf8", 2, 2 + n), rest: payload.subarray(2 + n) };
}

/** Splits a byte stream into frames; calls `onFrame(type, payload)` for each complete one. */
export class FrameSplitter {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** A frame announcing more than this throws (before authentication a peer gets little room). */
  maxFrame = Infinity;

  constructor(private readonly onFrame: (type: FrameType, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (this.buffered >= 5) {
      const head = this.peek(5);
      const len = head.readUInt32LE(0);
      if (len > this.maxFrame) throw new Error(`replication frame of ${len} bytes refused`);
      if (this.buffered < 4 + len) return;
      const frame = this.take(4 + len);
      this.onFrame(frame[4] as FrameType, frame.subarray(5));
    }
  }

  private peek(n: number): Buffer {
    if (this.chunks[0]!.length >= n) return this.chunks[0]!;
    this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!;
  }

  private take(n: number): Buffer {
    const first = this.chunks[0]!;
    if (first.length >= n) {
      const out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      this.buffered -= n;
      return out;
    }
    const all = Buffer.concat(this.chunks);
    this.chunks = all.length > n ? [all.subarray(n)] : [];
    this.buffered -= n;
    return all.subarray(0, n);
  }
}
