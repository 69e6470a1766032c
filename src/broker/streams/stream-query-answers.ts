/** The leader's side of a stream's query from another node (stream-queries.ts): read from its log. */
import type { StreamQuery } from "./stream-queries.js";
import type { StreamQueue } from "./stream-queue.js";

/** The numbers answering `query` on the stream's leader. */
export function answerStreamQuery(q: StreamQueue, query: StreamQuery): number[] {
  const log = q.stream;
  switch (query.kind) {
    case "publisherSequence":
      return [log.publisherSequence(query.reference) ?? 0];
    case "queryOffset": {
      const offset = log.queryOffset(query.reference);
      return offset === undefined ? [0, 0] : [1, offset];
    }
    case "storeOffset":
      log.storeOffset(query.reference, query.offset);
      return [];
    case "figures":
      return [log.firstOffset, log.committedOffset, log.nextOffset, log.lastChunkOffset, log.segmentCount];
  }
}
