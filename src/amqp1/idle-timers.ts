/**
 * An AMQP 1.0 connection's clocks (part 2 §2.4.5): the handshake's deadline, then our idle
 * time-out (a peer silent for longer is closed) and empty frames at half the peer's, so it never
 * closes us. Invariant: after stop(), no timer of this connection is armed.
 */
import { Amqp1Error, CONDITION } from "./amqp1-errors.js";

export class IdleTimers {
  /** When the peer last sent anything (any bytes count, as frames arrive in reads). */
  lastRecv = Date.now();
  private idle: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;

  /** `fail` closes the connection with the error; `beat` sends one empty frame. */
  constructor(
    private readonly fail: (err: Amqp1Error) => void,
    private readonly beat: () => void,
  ) {}

  /** Until open: the peer must complete its handshake within `ms`. */
  handshake(ms: number): void {
    this.idle = setTimeout(() => this.fail(new Amqp1Error(CONDITION.resourceLimitExceeded, "handshake timed out")), ms).unref();
  }

  /** At open: our idle time-out `ours` (ms, 0 = none) and the peer's `peers` (ms, 0 = none). */
  start(ours: number, peers: number): void {
    this.stopIdle();
    if (ours > 0) {
      this.idle = setInterval(() => {
        if (Date.now() - this.lastRecv > ours) this.fail(new Amqp1Error(CONDITION.resourceLimitExceeded, `no frame within the idle time-out of ${ours} ms`));
      }, Math.max(100, ours / 4)).unref();
    }
    if (peers > 0) this.heartbeat = setInterval(this.beat, Math.max(50, peers / 2)).unref();
  }

  stop(): void {
    this.stopIdle();
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private stopIdle(): void {
    // clearTimeout clears an interval too (one timer list in Node).
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
  }
}
