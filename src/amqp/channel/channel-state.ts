/**
 * What a channel is to its method handlers and to the modules that hold its concepts
 * (publishing.ts, settlement.ts, channel-info.ts): its state and the few operations that stay
 * with the Channel class. The Channel class (channel.ts) implements it and finds handlers in
 * the method table; handlers see only this interface, so nothing here imports the class.
 *
 * Invariants: delivery tags grow by one per delivery or get-ok; `unacked` iterates in tag order
 * (a Map keeps insertion order), which multiple-acks rely on; a channel is in at most one of
 * confirm and tx mode.
 */
import type { ClientContext, Exchange, Message, Queue, SyncWaiter, VHost } from "../../broker/index.js";
import type { AckTimeoutWatch } from "./ack-timeout.js";
import type { ConsumerChannel } from "./channel-consumer.js";
import type { ConfirmTracker } from "./confirm-tracker.js";
import type { DirectReplyConsumer, ReplyChannel } from "./direct-reply-to.js";

/** Publishes and acks held back by a transaction until tx.commit (AMQP 0-9-1 tx class). */
export interface TxState {
  publishes: Array<{ exchange: Exchange; message: Message; mandatory: boolean }>;
  settlements: Array<() => void>;
}

export interface ChannelState extends ConsumerChannel, ReplyChannel, SyncWaiter {
  readonly ctx: ClientContext;
  /** The connection's vhost (fixed: channels open only after connection.open). */
  readonly vhost: VHost;
  /** Channel-wide prefetch (basic.qos global=true); 0 = unlimited. */
  prefetchCount: number;
  /** Prefetch given to consumers created from now on (basic.qos global=false). */
  consumerPrefetch: number;
  confirm: ConfirmTracker | null;
  tx: TxState | null;
  /** The queue most recently declared on this channel: "" in queue names means it (AMQP 0-9-1). */
  lastQueue: string;
  replyConsumer: DirectReplyConsumer | null;
  readonly createdAt: number;
  /** consumer_timeout's watch over unacked deliveries (ack-timeout.ts). */
  readonly ackWatch: AckTimeoutWatch;
  /** Scratch array for routing results, reused by every publish (no allocation per message). */
  readonly routed: Queue[];

  /** basic.publish: content follows in a header frame and zero or more body frames. */
  startPublish(exchange: Exchange, routingKey: string, mandatory: boolean): void;
  /** Lets consumers take messages again after acks freed capacity (only `queues`, unless a channel-wide prefetch applies). */
  resumeDeliveries(queues?: ReadonlySet<Queue>): void;
  /** Client channel.close: release everything and answer close-ok. */
  closeByClient(): void;
}
