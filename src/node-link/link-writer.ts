/**
 * The link's output: frames written during one event-loop turn go out together — the socket is
 * corked at the first and uncorked once the turn's I/O callbacks are done (setImmediate), so a
 * turn's forwarded publishes, deliveries and settlements leave in one writev, as the store's
 * group commit writes one batch per turn. Bodies are written as they are (never copied).
 */
import type { Socket } from "node:net";

export class LinkWriter {
  private corked = false;
  private readonly uncork = (): void => {
    this.beforeUncork?.();
    this.corked = false;
    if (!this.socket.destroyed) this.socket.uncork();
  };

  /** `beforeUncork` writes what its owner held back for the turn (a message routed to several queues). */
  constructor(
    private readonly socket: Socket,
    private readonly beforeUncork?: () => void,
  ) {}

  /** Something will be written this turn: make sure the turn's write happens. */
  touch(): void {
    this.cork();
  }

  write(buf: Buffer): void {
    this.cork();
    this.socket.write(buf);
  }

  /** A frame in pieces (a message's head and its body's parts). */
  writeAll(pieces: readonly Buffer[]): void {
    this.cork();
    for (const p of pieces) this.socket.write(p);
  }

  /** True while the socket's buffer is past its high-water mark (the reader should wait). */
  get backedUp(): boolean {
    return this.socket.writableNeedDrain;
  }

  private cork(): void {
    if (this.corked || this.socket.destroyed) return;
    this.corked = true;
    this.socket.cork();
    setImmediate(this.uncork);
  }
}
