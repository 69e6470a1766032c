/**
 * What a command handler (stream-login, stream-admin, stream-publishers, stream-subscriptions)
 * sees of its connection: the node, who logged in, how to send, its publishers and
 * subscriptions. StreamConnection implements it; the handlers import only this.
 */
import type { ClientContext, StreamPublisherHandle, StreamQueue, VHost } from "../broker/index.js";
import type { PermissionChecker } from "../auth/permission-check.js";
import type { StreamNode } from "./stream-node.js";
import type { FrameCursor } from "./wire.js";

export interface PublisherState {
  readonly id: number;
  /** "" when the publisher has no reference (no deduplication). */
  readonly reference: string;
  readonly stream: string;
  /** Null for a stream another node leads (its leader appends: stream-remote-publishers.ts). */
  readonly queue: StreamQueue | null;
  /** The way to the leader of a stream another node leads; null for a local one. */
  readonly remote: StreamPublisherHandle | null;
  /** Highest publishing id accepted (deduplication needs a reference); -1 before the reference's first, so id 0 is kept. */
  sequence: number;
  published: number;
  confirmed: number;
  errored: number;
  /** Forgets the publisher's hooks on its stream. */
  stop(): void;
}

export interface SubscriptionState {
  readonly id: number;
  readonly stream: string;
  /** Null for a stream another node leads (read over the link: stream-remote-subscriptions.ts). */
  readonly queue: StreamQueue | null;
  readonly properties: ReadonlyMap<string, string>;
  credit: number;
  consumed: number;
  /** The next offset the subscription is at (the client filters the first chunk below its start). */
  offset: number;
  /** For a stream another node leads: its committed offset as the leader's last chunk told it. */
  remoteCommitted?: number;
  /** False while another member of its single-active-consumer group is active. */
  active: boolean;
  /** Sends what credit and the committed chunks allow. */
  wake(): void;
  /** Unsubscribes and forgets the subscription's hooks. */
  stop(): void;
}

export interface StreamContext {
  readonly node: StreamNode;
  readonly openVhost: VHost;
  readonly permissions: PermissionChecker;
  readonly ctx: ClientContext;
  /** Negotiated with Tune; 0: no limit. */
  readonly frameMax: number;
  readonly publishers: Map<number, PublisherState>;
  readonly subscriptions: Map<number, SubscriptionState>;
  /** Ties to the streams in use (stream-links.ts). */
  readonly links: {
    attach(q: StreamQueue, wake: (() => void) | null): void;
    detach(q: StreamQueue, wake: (() => void) | null): void;
  };
  /** Version of Deliver the client agreed on (2 after ExchangeCommandVersions says so). */
  deliverVersion: number;
  /**
   * Sends one frame (or its pieces); returns false when the socket's buffer is full. `written` is
   * called once the socket is done with the bytes (not at all if the connection is already closed).
   */
  send(frame: Buffer | readonly Buffer[], written?: () => void): boolean;
  /**
   * Messages accepted but not yet confirmed changed by `delta`: past RabbitMQ's 50,000 credits the
   * connection stops reading until confirms bring it back under 37,500 (its flow control).
   */
  unconfirmedChanged(delta: number): void;
  /**
   * Sends ConsumerUpdate to the client and calls `answered` with the rest of its response (its
   * code and offset specification), or with null when the connection closes or 5 s pass first.
   */
  consumerUpdate(subscriptionId: number, active: boolean, answered: (body: FrameCursor | null) => void): void;
  /** Called once when a full socket buffer has drained. */
  whenWritable(fn: () => void): void;
  readonly closed: boolean;
  /** The streams the client was told are gone and has not used since (stream-gone.ts). */
  readonly goneTold: Set<string>;
}
