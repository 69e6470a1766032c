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
 * consumes is never a reason to pause (a backlog there is what its users asked for). Nor is a
 * stream: its messages stay after delivery (its length says nothing of its consumers' lag), they
 * are on disk rather than in memory, and each consumer reads at its own pace, as RabbitMQ's
 * stream publishers are not held back by consumers.
 */
import type { Queue } from "./queue.js";

export const FLOW_HIGH = 20_000;
export const FLOW_HIGH_BYTES = 64 * 1024 * 1024;
const POLL_MS = 2;

export interface FlowHost {
  readonly hasConsumers: boolean;
  pauseForFlow(): void;
  resumeFromFlow(): void;
}

export class PublishFlow {
  private waitingOn: Queue | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly host: FlowHost) {}

  get paused(): boolean {
    return this.waitingOn !== null;
  }

  /** After a publish reached `queues` (the first `n`): one comparison per queue on the hot path. */
  check(queues: readonly Queue[], n: number): void {
    if (this.waitingOn !== null) return;
    for (let i = 0; i < n; i++) {
      const q = queues[i]!;
      if ((q.messageCount > FLOW_HIGH || q.readyBytes > FLOW_HIGH_BYTES) && q.consumerCount > 0 && !this.host.hasConsumers && q.type !== "stream") {
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
    const caughtUp = q.messageCount <= FLOW_HIGH / 2 && q.readyBytes <= FLOW_HIGH_BYTES / 2;
    if (!caughtUp && !q.isDeleted && q.consumerCount > 0) return;
    this.stop();
    this.host.resumeFromFlow();
  }
}
