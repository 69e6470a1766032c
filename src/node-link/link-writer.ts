/**
 * The link's output: frames written during one event-loop turn go out together, once the turn's
 * I/O callbacks are done (setImmediate), as the store's group commit writes one batch per turn.
 * Small pieces (frame heads, settlements, bodies under SMALL bytes) are joined into one buffer per
 * run — one socket write instead of one per piece, which is what a forwarded message would cost
 * otherwise; larger bodies are written as they are (never copied), between the runs, in one
 * corked writev.
 */
import type { Socket } from "node:net";

/** Pieces below this are copied into the turn's joined run; larger ones are referenced. */
const SMALL = 1024;

export class LinkWriter {
  private scheduled = false;
  private readonly parts: Buffer[] = [];
  private readonly run: Buffer[] = [];
  private runBytes = 0;
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

  write(buf: Buffer): void {
    this.schedule();
    if (buf.length < SMALL) {
      this.run.push(buf);
      this.runBytes += buf.length;
    } else {
      this.endRun();
      this.parts.push(buf);
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

  private endRun(): void {
    const run = this.run;
    if (run.length === 0) return;
    this.parts.push(run.length === 1 ? run[0]! : Buffer.concat(run, this.runBytes));
    run.length = 0;
    this.runBytes = 0;
  }

  private schedule(): void {
    if (this.scheduled || this.socket.destroyed) return;
    this.scheduled = true;
    setImmediate(this.flush);
  }
}
