/**
 * A native publisher's batch appended to a stream's log, with deduplication (one Publish frame's
 * messages, on the node that leads the stream): the rule RabbitMQ's osiris writer applies, decided
 * where the log's publisher sequences live. A message whose publishing id is not above its
 * reference's sequence is a duplicate (confirmed, not written again); an empty one is refused; one
 * the stream cannot take (deleted, an undecided claim) is refused as unavailable. The reference's
 * sequence is written with the messages (durably, by the log).
 *
 * Used by a local publisher (src/stream/stream-publishers.ts) and by the leader serving a publisher
 * on another node (src/node-link/served-stream-publishes.ts): one rule in one place.
 */
import type { EncodedMessageDecoder } from "./stream-log.js";
import type { StreamQueue } from "./stream-queue.js";
import type { NativeBatch, NativeRefusal } from "./stream-publish-port.js";

export interface NativeAppended {
  readonly accepted: number[];
  readonly duplicates: number[];
  readonly refused: [number, NativeRefusal][];
  /** The reference's sequence after the batch (-1: none yet). */
  readonly sequence: number;
}

/** A reference's sequence before its first message: publishing ids start at 0, which is new (osiris keeps no entry until a writer's first write). */
export const NO_SEQUENCE = -1;

/**
 * Appends `batch` to `q` for the publisher with `reference` ("" = no deduplication), whose highest
 * accepted id this node last knew is `known` (the log's sequence wins when higher: another
 * connection may publish under the same reference).
 */
export function appendNative(q: StreamQueue, reference: string, known: number, batch: NativeBatch, decode: EncodedMessageDecoder): NativeAppended {
  const dedup = reference !== "";
  let sequence = dedup ? Math.max(known, q.stream.publisherSequence(reference) ?? NO_SEQUENCE) : known;
  const accepted: number[] = [];
  const duplicates: number[] = [];
  const refused: [number, NativeRefusal][] = [];
  const { ids, entries, filters } = batch;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const m = entries[i]!;
    if (dedup && id <= sequence) {
      duplicates.push(id);
      continue;
    }
    if (m === null || (!Buffer.isBuffer(m) && m.records === 0)) {
      refused.push([id, "empty"]);
      continue;
    }
    if ((Buffer.isBuffer(m) ? q.appendEncoded(m, decode, filters === null ? null : filters[i]!) : q.appendSubBatch(m, decode)) < 0) {
      refused.push([id, "unavailable"]);
      continue;
    }
    if (dedup) sequence = id;
    accepted.push(id);
  }
  if (dedup && accepted.length > 0) q.stream.setPublisherSequence(reference, sequence);
  return { accepted, duplicates, refused, sequence };
}
