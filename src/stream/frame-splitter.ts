/**
 * Cuts the socket's byte stream into stream-protocol frames (uint32 size, then the frame). The
 * pieces of a frame are joined once, when it is whole; a frame's body is a slice of that buffer
 * (published messages keep pointing into it, never copied). A size above the limit is reported
 * before any of that frame is kept.
 */

export type SplitResult = { readonly tooLarge: number } | null;

export class FrameSplitter {
  private parts: Buffer[] = [];
  private have = 0;
  /** Bytes of the current frame including its size prefix; -1 until the prefix is read. */
  private need = -1;

  /** The largest frame body accepted (0: no limit). */
  constructor(public maxFrame: number) {}

  /** Calls `onFrame` for each whole frame; returns `{ tooLarge: size }` (and stops) at an oversized one. */
  push(data: Buffer, onFrame: (frame: Buffer) => boolean): SplitResult {
    this.parts.push(data);
    this.have += data.length;
    for (;;) {
      if (this.need < 0) {
        if (this.have < 4) return null;
        if (this.parts[0]!.length < 4) this.parts = [Buffer.concat(this.parts, this.have)];
        const size = this.parts[0]!.readUInt32BE(0);
        if (this.maxFrame > 0 && size > this.maxFrame) return { tooLarge: size };
        this.need = 4 + size;
      }
      if (this.have < this.need) return null;
      const buf = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.have);
      const frame = buf.subarray(4, this.need);
      const rest = buf.subarray(this.need);
      this.parts = rest.length > 0 ? [rest] : [];
      this.have = rest.length;
      this.need = -1;
      if (!onFrame(frame)) return null;
    }
  }
}
