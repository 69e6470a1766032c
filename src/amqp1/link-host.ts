/**
 * What sessions and links need of the objects above them, as interfaces, so that the
 * connection → session → link chain has no import cycle: a session sees its connection as a
 * SessionConnection, a link sees its session as a LinkHost.
 */
import type { Broker, ChannelCounters, ClientContext, Queue, QueueEntry, VHost } from "../broker/index.js";
import type { PermissionChecker } from "../auth/permission-check.js";
import type { Logger } from "../logging/logger.js";
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import type { Amqp1Error } from "./amqp1-errors.js";
import type { Amqp1Output } from "./amqp1-output.js";
import type { Amqp1Settings } from "./amqp1-settings.js";
import type { ConnectionCredential } from "./connection-credential.js";
import type { SlabPool } from "../listeners/slab-pool.js";

export interface SessionConnection {
  readonly name: string;
  readonly peerHost: string;
  readonly peerPort: number;
  readonly user: string;
  readonly vhost: string;
  readonly broker: Broker;
  readonly settings: Amqp1Settings;
  readonly output: Amqp1Output;
  readonly log: Logger;
  readonly vhostRef: VHost | null;
  readonly ctx: ClientContext | null;
  readonly permissions: PermissionChecker | null;
  /** The pool the connection's read slabs come from (a transfer's payload is leased from it), or null. */
  readonly slabs: SlabPool | null;
  /** Open, and the socket takes writes. */
  readonly canWrite: boolean;
  /** The login's credential: a token's expiry and refresh (the /management node's PUT /auth/tokens). */
  readonly credential: ConnectionCredential;
  sessionEnded(channel: number): void;
}

/** A link whose deliveries wait in the session's unsettled map. */
export interface UnsettledLink {
  unsettledCount: number;
}

export interface Unsettled {
  readonly link: UnsettledLink;
  readonly queue: Queue;
  readonly entry: QueueEntry;
}

/** Either kind of link, as its session handles it. */
export interface SessionLink {
  readonly handle: number;
  attach(): void;
  onFlow(f: readonly Amqp10Value[]): void;
  release(): void;
  addStats(c: ChannelCounters): void;
}

export interface LinkHost {
  readonly conn: SessionConnection;
  readonly channel: number;
  /** The id of the session's next outgoing delivery. */
  nextDeliveryId: number;
  readonly unsettled: Map<number, Unsettled>;
  readonly canSend: boolean;
  send(code: number, fields: readonly Amqp10Value[]): void;
  sessionFlowFields(): Amqp10Value[];
  sent(frames: number): void;
  acceptLater(deliveryId: number): void;
  settleIncoming(deliveryId: number, state: Amqp10Value): void;
  flushAccepted(): void;
  /** Sends the link's credit top-up at the end of the current read. */
  grantLater(link: { grant(): void }): void;
  detachLink(link: SessionLink, e: Amqp1Error | null): void;
}
