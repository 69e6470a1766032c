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
 *
 * A lent body written by reference (values/body-lease.ts) is held until the socket has written
 * the turn it went out in (the write's callback, also called when the socket is destroyed first);
 * a copied one needs no hold.
 */
import type { Socket } from "node:net";
import { isBodyParts, type Body } from "../broker/values/message-body.js";
import type { BodyLease } from "../broker/values/body-lease.js";

const NO_LEASES: BodyLease[] = [];

/** Pieces below this are copied into the slab; larger ones are referenced. */
const SMALL = 1024;
/** Pieces up to this are copied byte by byte in JavaScript (link-frames.ts SHORT, for the same reason). */
const TINY = 64;
/** A new slab's size (a frame larger than this gets a slab of its own size). */
const SLAB = 64 * 1024;

export class LinkWriter {
  /** Where frames are built: `reserve` hands out offsets into it. */
  slab: Buffer = Buffer.allocUnsafe(SLAB);
  private start = 0;
  private end = 0;
  private scheduled = false;
  /** Grows with every byte reserved or part written: a frame left open (publish-runs.ts) sees whether anything followed it. */
  mark = 0;
  private readonly parts: Buffer[] = [];
  /** Leases of the bodies this turn references (held until its write is done). */
  private leases: BodyLease[] = NO_LEASES;
  private readonly flush = (): void => {
    this.beforeFlush?.();
    this.scheduled = false;
    this.endRun();
    const parts = this.parts;
    const socket = this.socket;
    const leases = this.leases;
    this.leases = NO_LEASES;
    const done = leases === NO_LEASES ? undefined : (): void => releaseAll(leases);
    if (socket.destroyed) done?.();
    else if (parts.length > 0) {
      if (parts.length === 1) socket.write(parts[0]!, done);
      else {
        socket.cork();
        const last = parts.length - 1;
        for (let i = 0; i < last; i++) socket.write(parts[i]!);
        socket.write(parts[last]!, done);
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
    this.mark += n;
    return at;
  }

  /** A whole frame built elsewhere: copied into the slab when small, else referenced. */
  write(buf: Buffer): void {
    const n = buf.length;
    if (n < SMALL) {
      const at = this.reserve(n); // first: it may move to a new slab
      // A few bytes (a small body) in JavaScript: Buffer#copy goes through a typed-array view and a builtin call.
      if (n <= TINY) {
        const slab = this.slab;
        for (let i = 0; i < n; i++) slab[at + i] = buf[i]!;
      } else buf.copy(this.slab, at);
    } else this.writeLarge(buf);
  }

  /** A message's body, after its head: small pieces are copied, larger ones referenced (held under `lease` until written). */
  writeBody(body: Body, lease: BodyLease | null = null): void {
    if (!isBodyParts(body)) {
      if (body.length === 0) return;
      if (lease !== null && body.length >= SMALL) this.holdUntilWritten(lease);
      this.write(body);
    } else {
      if (lease !== null) this.holdUntilWritten(lease);
      for (const piece of body) this.write(piece);
    }
  }

  private holdUntilWritten(lease: BodyLease): void {
    lease.hold();
    if (this.leases === NO_LEASES) this.leases = [];
    this.leases.push(lease);
    this.schedule();
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
    this.mark += buf.length;
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
      const leases = this.leases;
      this.leases = NO_LEASES;
      releaseAll(leases);
      return;
    }
    this.scheduled = true;
    setImmediate(this.flush);
  }
}

function releaseAll(leases: readonly BodyLease[]): void {
  for (const l of leases) l.release();
}
