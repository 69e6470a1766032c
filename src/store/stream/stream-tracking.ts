/**
 * A stream's tracking: its consumers' stored offsets (by reference, the stream protocol's
 * StoreOffset / QueryOffset) and its publishers' last publishing ids (by publisher reference, for
 * deduplication), kept in a small file beside the stream's segments (a ChunkLog side file). A
 * change is written by the next batch of the message store (`writeIfChanged` in the log's flush),
 * replaced atomically and replicated with that batch, so a confirm after the change covers it.
 * Never on a message's path: only a client's StoreOffset or a publisher's declare or
 * deduplicated publish changes it.
 */
import type { ChunkLog } from "./chunk-log.js";

/** The side file's name. */
const TRACKING_FILE = "tracking.json";

interface Tracking {
  offsets: Record<string, number>;
  sequences: Record<string, number>;
}

export class StreamTracking {
  private data: Tracking = { offsets: {}, sequences: {} };
  private dirty = false;

  /** `changed`: the log asks the store for a batch (the next one writes this file). */
  constructor(
    private readonly chunks: ChunkLog,
    private readonly changed: () => void,
  ) {
    const saved = chunks.readSideFile(TRACKING_FILE);
    if (saved !== null) this.data = JSON.parse(saved.toString("utf8")) as Tracking;
  }

  storeOffset(reference: string, offset: number): void {
    this.data.offsets[reference] = offset;
    this.markChanged();
  }

  queryOffset(reference: string): number | undefined {
    return this.data.offsets[reference];
  }

  publisherSequence(reference: string): number | undefined {
    return this.data.sequences[reference];
  }

  setPublisherSequence(reference: string, sequence: number): void {
    this.data.sequences[reference] = sequence;
    this.markChanged();
  }

  /** In a batch's flush: the file is rewritten when something changed since the last one. */
  writeIfChanged(): void {
    if (!this.dirty) return;
    this.dirty = false;
    this.chunks.writeSideFile(TRACKING_FILE, JSON.stringify(this.data));
  }

  private markChanged(): void {
    if (this.dirty) return;
    this.dirty = true;
    this.changed();
  }
}
