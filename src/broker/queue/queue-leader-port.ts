/**
 * The domain's port to a queue led by another node (docs/CLUSTERING.md, "A publish that crosses
 * nodes", "A delivery that crosses nodes"). RemoteQueue (remote-queue.ts) calls it; the inter-node
 * link (src/node-link) implements it over a socket. The domain knows no transport: what crosses
 * here are the domain's own values (Message, SyncWaiter) and plain numbers.
 *
 * Positions: every message forwarded over one port gets the next position (1, 2, …); the leader
 * reports them stored in order, and refused ones one by one before the report that covers them.
 */
import type { Message } from "../message.js";
import type { SyncWaiter } from "./queue-journal.js";
import type { QueueSpec } from "./queue-spec.js";
import type { FieldTable } from "../values/field-value.js";
import type { StreamQuery } from "../streams/stream-queries.js";
import type { StreamChunkSink, StreamReadHandle, StreamReadTerms } from "../streams/stream-read-port.js";
import type { StreamPublisherHandle } from "../streams/stream-publish-port.js";

/** A consumer on this node of a queue led elsewhere, as the port sees it. */
export interface RemoteConsumerSink {
  /** The leader handed over one message (the entry id is the leader's, used to settle it). */
  delivered(entryId: number, redelivered: boolean, deliveryCount: number, message: Message): void;
  /** The leader cancelled the consumer (its queue was deleted, or it refused the consume). */
  cancelledByLeader(reason: string): void;
}

/** What a settlement asks of the leader's queue (RabbitMQ's ack, nack/reject with and without requeue). */
export const SETTLE_ACK = 1;
export const SETTLE_REQUEUE = 2;
export const SETTLE_DISCARD = 3;
export type SettleOp = typeof SETTLE_ACK | typeof SETTLE_REQUEUE | typeof SETTLE_DISCARD;

/** The terms a remote consume is registered with on the leader. */
export interface RemoteConsumeTerms {
  readonly tag: string;
  readonly exclusive: boolean;
  readonly priority: number;
  /** Deliveries the leader may have outstanding (handed over and not yet settled) for this consumer. */
  readonly window: number;
  /** basic.consume's arguments the leader's queue reads (a stream's x-stream-offset, x-stream-filter); null: none. */
  readonly arguments: FieldTable | null;
}

/** The counts a leader reports for one queue (passive declare, the management API). */
export interface RemoteQueueInfo {
  /** Ready messages. */
  readonly messages: number;
  readonly consumers: number;
  /** Delivered and not yet settled, wherever the consumer is: the API's `messages_unacknowledged` on every node. */
  readonly unacked: number;
}

export interface QueueLeaderPort {
  /** The leading node's name (the queue's `node`). */
  readonly node: string;
  /** False once the link to the leader is lost; a lost port never comes back (a new link is a new port). */
  readonly up: boolean;
  /** Forwarded messages not yet reported stored, and their bytes: the credit in use. */
  readonly inFlight: number;
  readonly inFlightBytes: number;
  /** The credit the leader granted: how far `inFlight` / `inFlightBytes` may go before publishers wait. */
  readonly creditMessages: number;
  readonly creditBytes: number;

  /**
   * Forwards a message to `queue` on the leader; returns its position on this port. A message with
   * a lease (values/body-lease.ts) was routed here with one hold for this queue's entry: the port
   * releases it once it no longer needs the body (copied, or written by its socket).
   */
  forward(queue: QueueSpec & { readonly vhost: string }, message: Message): number;
  /**
   * Calls `waiter.synced(token, ok)` once every position up to `last` is stored: ok is false when
   * one of `first`…`last` was refused, or the link was lost before (never a confirm for a message
   * the leader may not have).
   */
  whenStored(waiter: SyncWaiter, token: number, first: number, last: number): void;

  /** Registers a consumer on the leader's queue; returns the consumer's id on this port. */
  consume(queue: QueueSpec & { readonly vhost: string }, terms: RemoteConsumeTerms, sink: RemoteConsumerSink): number;
  cancel(consumerId: number): void;
  settle(consumerId: number, entryId: number, op: SettleOp): void;
  /** Registers what to call when the link is lost (every consumer and wait of this port is over). */
  onLost(listener: () => void): void;

  /** queue.purge on the leader: how many ready messages it dropped. */
  purge(queue: QueueSpec & { readonly vhost: string }): Promise<number>;
  /** queue.delete on the leader: how many messages went with it. */
  delete(queue: QueueSpec & { readonly vhost: string }): Promise<number>;
  info(queue: QueueSpec & { readonly vhost: string }): Promise<RemoteQueueInfo>;
  /**
   * The counts of several queues this node leads, in one ask (the management API's lists,
   * remote-counts.ts): one answer per queue, in order; null for a queue it no longer leads.
   */
  infoMany(queues: readonly (QueueSpec & { readonly vhost: string })[]): Promise<readonly (RemoteQueueInfo | null)[]>;
  /** basic.get on the leader: one message (held for settling when not no-ack), or null when empty. */
  get(queue: QueueSpec & { readonly vhost: string }, noAck: boolean): Promise<RemoteGot | null>;
  /** A stream's query on the leader (stream-queries.ts): the numbers it answers. */
  streamQuery(queue: QueueSpec & { readonly vhost: string }, query: StreamQuery): Promise<readonly number[]>;
  /**
   * A native subscription read from the leader's log (stream-read-port.ts); null when the leader
   * does not serve such reads (a node of an earlier version) or the link is down.
   */
  readStream?(queue: QueueSpec & { readonly vhost: string }, terms: StreamReadTerms, sink: StreamChunkSink): StreamReadHandle | null;
  /**
   * A native publisher whose batches the leader appends (stream-publish-port.ts), `reference` ""
   * for none; null when the leader takes no such batches (a node of an earlier version) or the link is down.
   */
  streamPublisher?(queue: QueueSpec & { readonly vhost: string }, reference: string): StreamPublisherHandle | null;
}

/** What a remote basic.get returns; `consumerId` settles it (0 for no-ack). */
export interface RemoteGot {
  readonly consumerId: number;
  readonly entryId: number;
  readonly redelivered: boolean;
  readonly deliveryCount: number;
  readonly message: Message;
  /** Ready messages left after it. */
  readonly remaining: number;
}
