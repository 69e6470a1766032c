/**
 * The leading node's end of native stream publishers on another node (stream-publish-frames.ts):
 * each STREAM_PUBLISH is appended to the stream's log with deduplication by the batch's reference
 * (native-appends.ts, the rule a local publisher follows: the log's sequences live here), and
 * answered STREAM_PUBLISHED once what it appended is stored (Broker.whenStored: synced, and in a
 * cluster replicated), as a local publisher's PublishConfirm waits. A stream gone, or led elsewhere
 * now (its group moved), refuses the whole batch; the publisher's node tells its client
 * stream_not_available.
 *
 * Answers keep the order batches came in when nothing else reorders the store's waits; each names
 * its batch, so the publisher's node needs no order.
 */
import { appendNative, NO_SEQUENCE, StreamQueue, type Broker, type Queue } from "../broker/index.js";
import type { SlabPool } from "../listeners/slab-pool.js";
import { decodeNative } from "../stream/stream-message.js";
import type { LinkWriter } from "./link-writer.js";
import { STREAM_PUBLISH, publishedFrame, readPublish } from "./stream-publish-frames.js";

export class ServedStreamPublishes {
  constructor(
    private readonly writer: LinkWriter,
    private readonly broker: Broker,
    /** The queue behind a link id, as the session knows it. */
    private readonly queueOf: (id: number) => Queue | null,
    private readonly slabs: SlabPool | null,
    /** True once the link is closed (no answer is written). */
    private readonly closed: () => boolean,
  ) {}

  /** A STREAM_PUBLISH; false for another frame type. */
  onFrame(f: Buffer): boolean {
    if (f[4] !== STREAM_PUBLISH) return false;
    const { batchId, queueId, reference, batch } = readPublish(f, this.slabs);
    const q = this.queueOf(queueId);
    if (q === null || q.isDeleted || !(q instanceof StreamQueue)) {
      this.writer.write(publishedFrame(batchId, "notFound", [], []));
      return true;
    }
    if (q.leadsElsewhere) {
      this.writer.write(publishedFrame(batchId, "unavailable", [], []));
      return true;
    }
    const journal = this.broker.journal;
    const before = journal?.appends ?? 0;
    const { accepted, duplicates, refused } = appendNative(q, reference, NO_SEQUENCE, batch, decodeNative);
    const confirmed = duplicates.length === 0 ? accepted : duplicates.concat(accepted);
    if (accepted.length === 0 || journal === null || journal.appends === before) {
      this.writer.write(publishedFrame(batchId, null, confirmed, refused));
      return true;
    }
    this.broker.whenStored(
      {
        synced: (_t, ok) => {
          if (this.closed()) return;
          if (ok) this.writer.write(publishedFrame(batchId, null, confirmed, refused));
          else this.writer.write(publishedFrame(batchId, null, duplicates, [...refused, ...accepted.map((id) => [id, "notStored"] as const)]));
        },
      },
      0,
    );
    return true;
  }
}
