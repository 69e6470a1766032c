/**
 * A link frame left open in the writer's slab while more of it may follow (the runs of
 * publish-runs.ts and own-runs.ts): its bytes are written as they come, its u32 length is filled
 * by `seal`, which its owner calls before the writer's turn is written (the writer's beforeFlush)
 * and which opening the next frame calls too.
 *
 * Invariant: nothing else lies inside an open frame — anything written to the writer after the
 * frame's last byte moves the writer's `mark`, and `isOpenAt` is then false, so the next piece
 * opens a new frame instead of continuing this one.
 */
import type { LinkWriter } from "./link-writer.js";

export class OpenFrame {
  /** The slab holding the open frame's length field, or null: no frame is open. */
  private slab: Buffer | null = null;
  private at = 0;
  /** The open frame's length so far (its u32 length excluded). */
  protected length = 0;
  /** The writer's mark after the frame's last byte. */
  private mark = -1;

  /** Fills the open frame's length: it is whole. */
  seal(): void {
    const slab = this.slab;
    if (slab === null) return;
    slab.writeUInt32LE(this.length, this.at);
    this.slab = null;
  }

  /** Whether a frame is open and its last byte is the last `w` was given. */
  protected isOpenAt(w: LinkWriter): boolean {
    return this.slab !== null && this.mark === w.mark;
  }

  /** Seals the open frame and reserves `headLen` bytes of a new one (its u32 length and u8 type first): returns their offset in `w.slab`. */
  protected begin(w: LinkWriter, type: number, headLen: number): number {
    this.seal();
    const at = w.reserve(headLen);
    w.slab[at + 4] = type;
    this.slab = w.slab;
    this.at = at;
    this.length = headLen - 4;
    return at;
  }

  /** `n` more bytes of the open frame were just written to `w`. */
  protected grew(w: LinkWriter, n: number): void {
    this.length += n;
    this.mark = w.mark;
  }
}
