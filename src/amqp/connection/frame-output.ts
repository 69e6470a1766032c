/**
 * A connection's outgoing frames: one buffer that every channel encodes into, written to the
 * socket once per event-loop turn (flush on setImmediate) so many frames share one syscall, or
 * at once past OUTPUT_HIGH_WATER. Pieces leave corked, in one writev; large bodies are referenced
 * in place, never copied. A refused write (socket buffer full) marks the output blocked until
 * 'drain', and consumers take no deliveries meanwhile. The last write's callback gives the
 * written blocks back to the output's free list (output-buffer.ts), so sending allocates nothing
 * in the long run.
 */
import type { Duplex } from "node:stream";
import { OutputBuffer } from "../codec/output-buffer.js";
import type { ChannelOutput } from "../channel/channel-host.js";

/** Above this many buffered output bytes a connection flushes at once. */
const OUTPUT_HIGH_WATER = 512 * 1024;

/** What the output needs of its connection. */
export interface OutputHost {
  /** False once the connection is closed: nothing more is written. */
  readonly isClosed: boolean;
  /** Right before each write: channels add their coalesced confirms. */
  beforeFlush(): void;
}

export class FrameOutput implements ChannelOutput {
  readonly out = new OutputBuffer();
  /** Our frame_max until connection.tune-ok, then the negotiated one. */
  frameMax: number;
  /** True from a refused write until 'drain'. */
  writeBlocked = false;
  sendOct = 0;
  sendCnt = 0;
  /** ms since the epoch of the last socket write (heartbeats.ts). */
  lastSend = Date.now();
  /** The vhost's traffic counters once the connection is in one. */
  vhostTraffic: { sendOct: number } | null = null;
  private flushScheduled = false;

  constructor(
    private readonly socket: Duplex,
    private readonly host: OutputHost,
    frameMax: number,
  ) {
    this.frameMax = frameMax;
  }

  /** Schedules one socket write for everything buffered this turn. */
  maybeFlush(): void {
    if (this.out.length >= OUTPUT_HIGH_WATER) {
      this.flush();
      return;
    }
    if (this.out.length > 0) this.scheduleFlush();
  }

  /** Schedules a flush even with nothing buffered yet: channels add confirms in beforeFlush(). */
  scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  flush(): void {
    this.host.beforeFlush();
    if (this.out.length === 0 || this.host.isClosed) return;
    const bytes = this.out.length;
    const taken = this.out.takeOutput();
    const pieces = taken.pieces;
    const written = (): void => this.out.release(taken);
    this.sendOct += bytes;
    this.sendCnt++;
    if (this.vhostTraffic) this.vhostTraffic.sendOct += bytes;
    this.lastSend = Date.now();
    let ok = true;
    if (pieces.length === 1) ok = this.socket.write(pieces[0]!, written);
    else {
      this.socket.cork();
      const last = pieces.length - 1;
      for (let i = 0; i < last; i++) this.socket.write(pieces[i]!);
      ok = this.socket.write(pieces[last]!, written);
      this.socket.uncork();
    }
    if (!ok) this.writeBlocked = true;
  }
}
