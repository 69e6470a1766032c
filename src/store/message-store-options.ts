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
}

export const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;
export const DEFAULT_PAGING: PagingLimits = { maxEntries: 16384, maxBytes: 16 * 1024 * 1024 };
