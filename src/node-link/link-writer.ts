/**
 * The link's output: frames written during one event-loop turn go out together, once the turn's
 * I/O callbacks are done (setImmediate), as the store's group commit writes one batch per turn.
 *
 * Frames are built in place in a slab (`slab`, from `reserve`): a forwarded message's head, its
 * small body and the turn's settlements cost no Buffer of their own, and the turn's bytes leave
 * in one socket write (issue 42: a Buffer per frame head, then a join per turn, was a large part
 * of the link's cost per message). Bodies of SMALL bytes and more are written as they are (never
 * copied), between the slab's runs, in one corked writev.
 *
 * Invariant: bytes of the slab before `end` are never written again once reserved — a run handed
 * to the socket may still be queued there — so a slab is only ever filled forwards, and a full
 * one is left to the garbage collector once the socket lets go of its runs.
 */
import type { Socket } from "node:net";
import { isBodyParts, type Body } from "../broker/values/message-body.js";

/** Pieces below this are copied into the slab; larger ones are referenced. */
const SMALL = 1024;
/** A new slab's size (a frame larger than this gets a slab of its own size). */
const SLAB = 64 * 1024;

export class LinkWriter {
  /** Where frames are built: `reserve` hands out offsets into it. */
  slab: Buffer = Buffer.allocUnsafe(SLAB);
  private start = 0;
  private end = 0;
  private scheduled = false;
  private readonly parts: Buffer[] = [];
  private readonly flush = (): void => {
    this.beforeFlush?.();
    this.scheduled = false;
    this.endRun();
    const parts = this.parts;
    const socket = this.socket;
    if (!socket.destroyed && parts.length > 0) {
      if (parts.length === 1) socket.write(parts[0]!);
      else {
        socket.cork();
        for (const p of parts) socket.write(p);
        socket.uncork();
      }
    }
    parts.length = 0;
  };

  /** `beforeFlush` writes what its owner held back for the turn (a message routed to several queues). */
  constructor(
    private readonly socket: Socket,
    private readonly beforeFlush?: () => void,
  ) {}

  /**
   * Room for `n` bytes in `slab`, written this turn: returns their offset. The caller fills them
   * before its next call to this writer (a later reservation may move to a new slab).
   */
  reserve(n: number): number {
    this.schedule();
    if (this.end + n > this.slab.length) {
      this.endRun();
      this.slab = Buffer.allocUnsafe(n > SLAB ? n : SLAB);
      this.start = this.end = 0;
    }
    const at = this.end;
    this.end = at + n;
    return at;
  }

  /** A whole frame built elsewhere: copied into the slab when small, else referenced. */
  write(buf: Buffer): void {
    if (buf.length < SMALL) {
      const at = this.reserve(buf.length); // first: it may move to a new slab
      buf.copy(this.slab, at);
    } else this.writeLarge(buf);
  }

  /** A message's body, after its head: small pieces are copied, larger ones referenced. */
  writeBody(body: Body): void {
    if (!isBodyParts(body)) {
      if (body.length > 0) this.write(body);
    } else {
      for (const piece of body) this.write(piece);
    }
  }

  /** A frame in pieces (a message's head and its body's parts). */
  writeAll(pieces: readonly Buffer[]): void {
    for (const p of pieces) this.write(p);
  }

  /** Something will be written this turn: make sure the turn's write happens. */
  touch(): void {
    this.schedule();
  }

  /** True while the socket's buffer is past its high-water mark (the reader should wait). */
  get backedUp(): boolean {
    return this.socket.writableNeedDrain;
  }

  private writeLarge(buf: Buffer): void {
    this.schedule();
    this.endRun();
    this.parts.push(buf);
  }

  /** The slab's bytes reserved since the last run become a part (a view, no copy). */
  private endRun(): void {
    if (this.end === this.start) return;
    this.parts.push(this.slab.subarray(this.start, this.end));
    this.start = this.end;
  }

  private schedule(): void {
    if (this.scheduled) return;
    if (this.socket.destroyed) {
      // Nothing goes out any more: what was written is dropped, and the slab is filled anew.
      this.parts.length = 0;
      this.start = this.end = 0;
      return;
    }
    this.scheduled = true;
    setImmediate(this.flush);
  }
}
