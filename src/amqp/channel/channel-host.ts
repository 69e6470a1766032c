/**
 * What a channel needs from its connection, and nothing more: the output (buffer, frame size,
 * when to write), whether deliveries may flow, the broker, who is connected to which vhost, the
 * negotiated limits, publisher flow control, and where errors and a finished close go.
 * AmqpConnection implements it; channels, consumers and method handlers see only this, so the
 * channel modules sit below the connection and import nothing of it.
 *
 * The host object doubles as the identity of the owning connection for exclusive queues.
 */
import type { SlabPool } from "../../listeners/slab-pool.js";
import type { PermissionChecker } from "../../auth/permission-check.js";
import type { Broker, Queue, VHost } from "../../broker/index.js";
import type { FieldTable } from "../../broker/values/field-value.js";
import type { OutputBuffer } from "../codec/output-buffer.js";

/** The connection's outgoing frames (connection/frame-output.ts). A channel keeps it in a field: one load per use, as before the split. */
export interface ChannelOutput {
  /** Frames for the socket; everything buffered in one event-loop turn leaves in one write. */
  readonly out: OutputBuffer;
  /** Body frames are cut to this size (the negotiated frame_max). */
  readonly frameMax: number;
  /** Schedules the socket write for this turn (writes at once past the high-water mark). */
  maybeFlush(): void;
  /** Schedules a write even with nothing buffered yet: channels add confirms in beforeFlush(). */
  scheduleFlush(): void;
}

export interface ChannelHost {
  readonly output: ChannelOutput;
  /** False while the socket is backed up or the connection is not running: consumers then wait. */
  readonly canDeliver: boolean;
  /** The pool its socket's read slabs return to, or null (content-assembly.ts). */
  readonly slabs: SlabPool | null;
  /** Publisher flow control: told which queues a publish reached (publish-flow.ts). */
  readonly flow: { check(queues: readonly Queue[], n: number): void };

  // ---- the broker and the client's context (fixed once the connection is open)
  readonly broker: Broker;
  readonly user: string;
  readonly permissions: PermissionChecker | null;
  /** The vhost's name, as broker operations take it. */
  readonly vhost: string;
  readonly vhostRef: VHost | null;
  /** The client's connection.start-ok properties (capabilities such as consumer_cancel_notify). */
  readonly clientProperties: FieldTable;
  readonly name: string;
  readonly peerHost: string;
  readonly peerPort: number;
  /** consumerTimeout: the node's consumer_timeout in ms (0 or absent = none). */
  readonly settings: { readonly maxMessageSize: number; readonly consumerTimeout?: number };

  // ---- errors and closing
  /** Closes the channel on a soft error, the connection on a hard one (replies per the error catalogue). */
  methodError(err: unknown, channel: number, classId: number, methodId: number): void;
  /** The channel finished closing (close-ok sent or received): its number may be opened again. */
  channelClosed(number: number): void;
  /** Reads no more frames until `p` settles: a method waiting for a queue's leader on another node keeps the order. */
  holdReadingUntil(p: Promise<unknown>): void;
  /** Whether `channel` is still the open channel under its number (not closed meanwhile). */
  holdsChannel(number: number, channel: object): boolean;
}
