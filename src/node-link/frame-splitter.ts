/**
 * Splits the link's byte stream into frames (link-frames.ts): a frame that lies whole in one read
 * is a slice of it (no copy); one that spans reads is joined once. A frame longer than `maxFrame`
 * ends the link (before authentication the limit is small: nothing is buffered for strangers).
 */
import type { Socket } from "node:net";

export class FrameSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(public maxFrame: number) {}

  /** Calls `onFrame(frame)` for each whole frame (its u32 length included); throws on an oversized frame. */
  push(chunk: Buffer, onFrame: (frame: Buffer) => void): void {
    let buf = chunk;
    if (this.pendingBytes > 0) {
      this.pending.push(chunk);
      // A large frame arriving in many reads is joined once, when it is whole.
      const first = this.pending[0]!;
      if (first.length >= 4 && this.pendingBytes + chunk.length < 4 + first.readUInt32LE(0)) {
        this.pendingBytes += chunk.length;
        return;
      }
      buf = Buffer.concat(this.pending, this.pendingBytes + chunk.length);
      this.pending = [];
      this.pendingBytes = 0;
    }
    let at = 0;
    while (buf.length - at >= 4) {
      const len = buf.readUInt32LE(at);
      if (len > this.maxFrame) throw new Error(`link frame of ${len} bytes exceeds ${this.maxFrame}`);
      if (buf.length - at < 4 + len) break;
      onFrame(buf.subarray(at, at + 4 + len));
      at += 4 + len;
    }
    if (at < buf.length) {
      const rest = buf.subarray(at);
      this.pending.push(rest);
      this.pendingBytes = rest.length;
    }
  }
}

/**
 * Reads `socket`'s frames through `splitter` into `onFrame`, then calls `afterRead` once per read;
 * a framing error goes to `onError` (by default it ends the socket). Returns what stops reading.
 */
export function readFrames(socket: Socket, splitter: FrameSplitter, onFrame: (f: Buffer) => void, afterRead?: () => void, onError?: (err: Error) => void): () => void {
  const onData = (chunk: Buffer): void => {
    try {
      splitter.push(chunk, onFrame);
    } catch (err) {
      if (onError) onError(err as Error);
      else socket.destroy(err as Error);
      return;
    }
    afterRead?.();
  };
  socket.on("data", onData);
  return () => socket.off("data", onData);
}
