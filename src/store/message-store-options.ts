/** How a MessageStore is set up: where it lives, how big its segments grow, how much it keeps in memory. */
import type { Logger } from "../logging/logger.js";
import type { PagingLimits } from "./stored-queue-log.js";

export interface MessageStoreOptions {
  readonly dir: string;
  readonly logger: Logger;
  /** A new segment is started when the current one would grow past this. */
  readonly segmentBytes?: number;
  /** Ready messages a durable queue keeps in memory before the rest stay on disk only. */
  readonly paging?: PagingLimits;
  /** How often online compaction looks for mostly-dead segments; 0 = never (tests call compact()). */
  readonly compactEveryMs?: number;
  /** The most live record bytes one group commit writes of a segment (commit-cap.ts); Infinity = no cap. */
  readonly commitBytes?: number;
  /** How long a capped write may hold back a large delivered record for its ack (delivery-hold.ts); 0 = never. */
  readonly holdMs?: number;
}

export const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;
export const DEFAULT_PAGING: PagingLimits = { maxEntries: 16384, maxBytes: 16 * 1024 * 1024 };
/**
 * 1 MiB: measured against no cap and a 256 KiB cap with 64 KB–1 MB persistent streams
 * (docs/PERFORMANCE.md, "Ninth pass"); 256 KiB wrote no less, and more fsyncs cost more when
 * records do not die while they wait.
 */
export const DEFAULT_COMMIT_BYTES = 1024 * 1024;
