/**
 * Heartbeats (AMQP 0-9-1 §4.2.7): we send one when we have been silent for half the
 * interval, and close the connection when the peer has been silent for two intervals. The
 * check runs every quarter interval, so a vanished peer (a frozen process, a half-open TCP
 * connection) is closed at most a quarter interval after its two intervals of silence.
 * The connection stamps `lastRecv` per socket read; the output stamps `lastSend` per write.
 */
import { FRAME_HEARTBEAT } from "../codec/generated.js";
import type { FrameOutput } from "./frame-output.js";

/** What heartbeats need from their connection. */
export interface HeartbeatHost {
  /** True while the connection is deliberately not read (an alarm or flow control): the peer's silence does not count then. */
  readonly readingPaused: boolean;
  /** The peer was silent for two intervals of `heartbeat` seconds: close. */
  peerSilent(heartbeat: number): void;
}

export class Heartbeats {
  /** ms since the epoch of the last socket read. */
  lastRecv = Date.now();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly host: HeartbeatHost,
    private readonly output: FrameOutput,
  ) {}

  /** Starts with the negotiated interval in seconds; 0 means no heartbeats. */
  start(heartbeat: number): void {
    if (heartbeat <= 0) return;
    const tickMs = (heartbeat * 1000) / 2;
    this.timer = setInterval(() => {
      const now = Date.now();
      // A connection blocked by an alarm is not read, so its heartbeats cannot count (RabbitMQ too).
      if (this.host.readingPaused) this.lastRecv = now;
      if (now - this.lastRecv > heartbeat * 2000) {
        this.host.peerSilent(heartbeat);
        return;
      }
      if (now - this.output.lastSend >= tickMs) {
        const out = this.output.out;
        out.endFrame(out.beginFrame(FRAME_HEARTBEAT, 0));
        this.output.flush();
      }
    }, tickMs / 2);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
