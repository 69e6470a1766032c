/**
 * A native stream subscription read from a stream another node leads (issue 42; docs/CLUSTERING.md
 * "Streams across the workers"): the leader reads its own log and hands whole committed chunks,
 * the bytes a client's Deliver carries, to the subscribing node, at most as many as the client's
 * credit allows. Types only: the queue-leader port names them, the node link implements them, the
 * stream protocol uses them; the domain knows neither.
 *
 * Invariant: the leader sends no chunk beyond the credit it was given (initial plus every
 * `credit(n)`), so what the subscribing node holds for its client is bounded by the client's credit.
 */
import type { StreamStart } from "./stream-arguments.js";

export interface StreamReadTerms {
  readonly start: StreamStart;
  /** Chunks the leader may send before more credit comes. */
  readonly credit: number;
  /** The subscription's properties the leader reads (filter.N, match-unfiltered). */
  readonly properties: ReadonlyMap<string, string>;
}

/** The property a single-active-consumer read of a super stream partition carries to the leader: the partition's index (the subscribing node resolves the super stream). */
export const PARTITION_INDEX_PROPERTY = "\u0000partition-index";

/** Why a read ended: the stream is gone (`notFound`) or its leader is not there any more (`unavailable`). */
export type StreamReadEnd = "notFound" | "unavailable";

export interface StreamChunkSink {
  /** The leader registered the read: chunks may follow. */
  started(): void;
  /**
   * One chunk: its first offset and message count, the leader's last committed chunk's offset (for a
   * Deliver v2) and committed offset, and its bytes as a client receives them. `done` must be called
   * once the bytes are written (they may lie in memory the link wants back).
   */
  chunk(firstOffset: number, count: number, committedChunk: number, committedOffset: number, bytes: Buffer, done: () => void): void;
  /** No more chunks (before `started`: the read was refused). Called at most once. */
  ended(why: StreamReadEnd): void;
  /**
   * A single-active-consumer read (`single-active-consumer=true` with a `name`: its group lives on
   * the leader, single-active-groups.ts) became active or not: the client is asked (ConsumerUpdate)
   * and `answer` gets the offset it starts from when activated (null: where the read stands), or
   * null when it is deactivated, once it replied.
   */
  update(active: boolean, answer: (start: StreamStart | null) => void): void;
}

/** A read the subscribing node holds: more credit, or the end of it. */
export interface StreamReadHandle {
  credit(n: number): void;
  cancel(): void;
}
