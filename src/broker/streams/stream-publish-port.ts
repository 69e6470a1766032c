/**
 * A native publisher on a stream another node leads (issue 42; docs/CLUSTERING.md "A native
 * publisher on any worker"): each Publish frame's batch goes to the leader with the publisher's
 * reference, the leader appends it with deduplication (native-appends.ts: the log's sequences live
 * there) and answers once what it appended is stored (synced; in a cluster, replicated). Types
 * only: the queue-leader port names them, the node link implements them, the stream protocol uses
 * them.
 *
 * Invariant: a batch is answered at most once; never answered when the link is lost first (its
 * messages may or may not be on the leader: the client is told stream_not_available and, as with
 * RabbitMQ when a stream's leader goes down, they are never confirmed).
 */
import type { EncodedSubBatch } from "./stream-log.js";

/** One entry of a Publish: a message's bytes, a sub-entry batch, or null (an empty entry). */
export type NativeEntry = Buffer | EncodedSubBatch | null;

/** Why a message was not appended: it was empty (`empty`), the stream could not take it (`unavailable`). */
export type NativeRefusal = "empty" | "unavailable";

export interface NativeBatch {
  readonly ids: readonly number[];
  readonly entries: readonly NativeEntry[];
  /** Publish v2's filter values; null while no entry of the batch has one. */
  readonly filters: readonly (string | null)[] | null;
}

/** Why the leader refused one message: as an append's (native-appends.ts), or `notStored` (its sync failed). */
export type ForwardedRefusal = NativeRefusal | "notStored";

/** Why the leader refused a whole batch: the stream is gone there (`notFound`) or not led there (`unavailable`). */
export type ForwardedBatchEnd = "notFound" | "unavailable";

export interface NativePublishSink {
  /** The batch is stored: `confirmed` (appended or duplicates) and `refused` ids, in the batch's order within each. */
  answered(confirmed: readonly number[], refused: readonly (readonly [number, ForwardedRefusal])[]): void;
  /** The leader took none of the batch. */
  refusedAll(why: ForwardedBatchEnd): void;
  /** The link was lost before the answer. */
  lost(): void;
}

/** A publisher's way to its stream's leader (one per declared publisher). */
export interface StreamPublisherHandle {
  /** Sends one Publish frame's batch; `sink` hears its outcome once. */
  publish(batch: NativeBatch, sink: NativePublishSink): void;
}
