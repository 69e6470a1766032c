/**
 * Publisher flow control, Coney's counterpart of RabbitMQ's credit flow (the connection state
 * "flow"): a publisher whose messages land in a consumed queue that has fallen behind by more
 * than FLOW_HIGH ready messages (or FLOW_HIGH_BYTES) is not read until that queue is back under
 * half of it, so a fast publisher cannot starve the consumers of CPU and fill memory. TCP
 * back-pressure reaches the publisher; nothing is refused or lost. Protocol-neutral: AMQP
 * connections and MQTT connections pause their sockets through FlowHost.
 *
 * Only a connection without consumers of its own is paused: acks travel on the consumer's
 * connection, and pausing one could stop the very acks that drain the queue. A queue nobody
 * consumes is never a reason to pause (a backlog there is what its users asked for). A stream is
 * weighed differently: its messages stay after delivery (its length says nothing of its
 * consumers' lag) and each consumer reads at its own pace, so a stream's publishers are held only
 * while its writer is behind — more than STREAM_FLOW_HIGH messages appended and not yet committed
 * (written, and in a cluster replicated) — as RabbitMQ's credit flow holds a stream publisher while
 * the stream's writer is busy. On one event loop that also leaves the consumers their share of it.
 */
import type { Queue } from "./queue-type.js";

export const FLOW_HIGH = 20_000;
export const FLOW_HIGH_BYTES = 64 * 1024 * 1024;
/**
 * A stream writer's lag that holds its publishers. Measured (docs/PERFORMANCE.md, "Streams over
 * AMQP"): with no limit an AMQP stream consumer got 2,300–3,600 msg/s beside a 125,000 msg/s
 * publisher; with 20,000 about 11,000; 5,000 about 22,000; 500, 73,000–81,000 (publisher
 * 80,000–88,000), the consumer then reading almost as fast as the publisher writes.
 */
export const STREAM_FLOW_HIGH = 500;
const POLL_MS = 2;

export interface FlowHost {
  readonly hasConsumers: boolean;
  pauseForFlow(): void;
  resumeFromFlow(): void;
}

export class PublishFlow {
  private waitingOn: Queue | null = null;
  private timer: NodeJS.Timeout | null = null;

  /**
   * `highBytes`: the ready bytes that hold the host. AMQP 1.0 senders pass a lower one
   * (incoming-link.ts): their pre-settled stream is paced only by link credit, so the default
   * let the queue swing between 32 and 64 MiB behind instead of handing messages over.
   */
  constructor(
    private readonly host: FlowHost,
    private readonly highBytes = FLOW_HIGH_BYTES,
  ) {}

  get paused(): boolean {
    return this.waitingOn !== null;
  }

  /** After a publish reached `queues` (the first `n`): one comparison per queue on the hot path. */
  check(queues: readonly Queue[], n: number): void {
    if (this.waitingOn !== null) return;
    for (let i = 0; i < n; i++) {
      const q = queues[i]!;
      // A queue led elsewhere is weighed as a stream's writer: its backlog is the leader's credit in use (remote-queue.ts).
      const behind = q.type === "stream" || q.leadsElsewhere ? q.flowBacklog > STREAM_FLOW_HIGH : (q.flowBacklog > FLOW_HIGH || q.readyBytes > this.highBytes) && q.consumerCount > 0;
      if (behind && !this.host.hasConsumers) {
        this.waitingOn = q;
        this.host.pauseForFlow();
        this.timer = setInterval(() => this.poll(), POLL_MS);
        return;
      }
    }
  }

  /** The connection is going away. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.waitingOn = null;
  }

  private poll(): void {
    const q = this.waitingOn!;
    const stream = q.type === "stream" || q.leadsElsewhere;
    const caughtUp = stream ? q.flowBacklog <= STREAM_FLOW_HIGH / 2 : q.flowBacklog <= FLOW_HIGH / 2 && q.readyBytes <= this.highBytes / 2;
    if (!caughtUp && !q.isDeleted && (stream || q.consumerCount > 0)) return;
    this.stop();
    this.host.resumeFromFlow();
  }
}
