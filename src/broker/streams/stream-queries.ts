/**
 * What a node asks of a stream another node leads, besides consuming it (docs/CLUSTERING.md,
 * "Streams across the workers"): the native protocol's commands a client sends on any connection
 * — QueryPublisherSequence, QueryOffset, StoreOffset, StreamStats — and the figures the
 * management API shows of a stream. Answered on the leader from its StreamQueue's log
 * (stream-query-answers.ts), as plain numbers, so the link carries them with no type of its own.
 * Types only: the queue-leader port names them without reaching the stream queue.
 */
export type StreamQuery =
  | { readonly kind: "publisherSequence"; readonly reference: string }
  | { readonly kind: "queryOffset"; readonly reference: string }
  | { readonly kind: "storeOffset"; readonly reference: string; readonly offset: number }
  | { readonly kind: "figures" };

/** The log's figures: offsets as osiris counts them are derived from these (stream-queue-record.ts). */
export interface StreamFigures {
  readonly firstOffset: number;
  readonly committedOffset: number;
  readonly nextOffset: number;
  readonly lastChunkOffset: number;
  readonly segmentCount: number;
}

export function figuresOf(n: readonly number[]): StreamFigures {
  return { firstOffset: n[0] ?? 0, committedOffset: n[1] ?? 0, nextOffset: n[2] ?? 0, lastChunkOffset: n[3] ?? 0, segmentCount: n[4] ?? 0 };
}
