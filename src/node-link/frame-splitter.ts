/**
 * Splits the link's byte stream into frames (link-frames.ts): a frame that lies whole in one read
 * is a slice of it (no copy); one that spans reads is joined once, from its pieces only. A frame longer than `maxFrame`
 * ends the link (before authentication the limit is small: nothing is buffered for strangers).
 */
import type { Socket } from "node:net";

export class FrameSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(public maxFrame: number) {}

  /** Whether the start of a frame still arriving lies in `memory` (a read slab: slab-reads.ts ReadBytesKeeper). */
  holdsBytesOf(memory: ArrayBufferLike): boolean {
    const pending = this.pending;
    for (let i = 0; i < pending.length; i++) if (pending[i]!.buffer === memory) return true;
    return false;
  }

  /** Calls `onFrame(frame)` for each whole frame (its u32 length included); throws on an oversized frame. */
  push(chunk: Buffer, onFrame: (frame: Buffer) => void): void {
    let at = 0;
    if (this.pendingBytes > 0) {
      // Only the bytes the split frame lacks are joined; the rest of the read stays uncopied.
      if (this.pendingBytes < 4) {
        const head = Buffer.concat([...this.pending, chunk.subarray(0, 4 - this.pendingBytes)]);
        if (head.length < 4) {
          this.pending = [head];
          this.pendingBytes = head.length;
          return;
        }
        at = 4 - this.pendingBytes;
        this.pending = [head];
        this.pendingBytes = 4;
      }
      const len = this.checked(this.pending[0]!.readUInt32LE(0));
      const lacking = 4 + len - this.pendingBytes;
      if (chunk.length - at < lacking) {
        this.pending.push(chunk.subarray(at));
        this.pendingBytes += chunk.length - at;
        return;
      }
      this.pending.push(chunk.subarray(at, at + lacking));
      const whole = Buffer.concat(this.pending, 4 + len);
      this.pending = [];
      this.pendingBytes = 0;
      at += lacking;
      onFrame(whole);
    }
    while (chunk.length - at >= 4) {
      const len = this.checked(chunk.readUInt32LE(at));
      if (chunk.length - at < 4 + len) break;
      onFrame(chunk.subarray(at, at + 4 + len));
      at += 4 + len;
    }
    if (at < chunk.length) {
      this.pending.push(chunk.subarray(at));
      this.pendingBytes = chunk.length - at;
    }
  }

  private checked(len: number): number {
    if (len > this.maxFrame) throw new Error(`link frame of ${len} bytes exceeds ${this.maxFrame}`);
    return len;
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
