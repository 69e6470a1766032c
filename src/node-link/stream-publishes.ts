/**
 * The connecting node's end of native stream publishers (stream-publish-frames.ts): each Publish
 * batch of a client here, for a stream the link's other end leads, goes out as one STREAM_PUBLISH
 * with the publisher's reference; its STREAM_PUBLISHED answer goes to the batch's sink. The link
 * is one ordered socket and the leader appends in the order frames come, so a publisher's order
 * holds. A lost link tells every waiting batch `lost` (never a confirm the leader did not give).
 */
import type { NativeBatch, NativePublishSink, QueueSpec, StreamPublisherHandle } from "../broker/index.js";
import type { LinkWriter } from "./link-writer.js";
import { STREAM_PUBLISHED, readPublished, writePublish } from "./stream-publish-frames.js";

type Queue = QueueSpec & { readonly vhost: string };

export class StreamPublishes {
  private readonly waiting = new Map<number, NativePublishSink>();
  private next = 0;

  constructor(
    private readonly writer: LinkWriter,
    /** The queue's id on the link (told to the leader on first use). */
    private readonly queueId: (q: Queue) => number,
    /** False once the link is lost. */
    private readonly up: () => boolean,
  ) {}

  publisher(queue: Queue, reference: string): StreamPublisherHandle {
    return {
      publish: (batch: NativeBatch, sink: NativePublishSink) => {
        if (!this.up()) return sink.lost();
        const id = ++this.next;
        this.waiting.set(id, sink);
        writePublish(this.writer, id, this.queueId(queue), reference, batch);
      },
    };
  }

  /** A STREAM_PUBLISHED; false for another frame type. */
  onFrame(f: Buffer): boolean {
    if (f[4] !== STREAM_PUBLISHED) return false;
    const a = readPublished(f);
    const sink = this.waiting.get(a.batchId);
    if (sink === undefined) return true;
    this.waiting.delete(a.batchId);
    if (a.end !== null) sink.refusedAll(a.end);
    else sink.answered(a.confirmed, a.refused);
    return true;
  }

  /** The link is lost: no waiting batch will be answered. */
  lose(): void {
    const sinks = [...this.waiting.values()];
    this.waiting.clear();
    for (const s of sinks) s.lost();
  }
}
