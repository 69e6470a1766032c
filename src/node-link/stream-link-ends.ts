/**
 * The connecting node's native-stream ends of one link (issue 42): reads of the leader's logs
 * (stream-reads.ts, FEATURE_STREAM_READ) and publishers' batches to them (stream-publishes.ts,
 * FEATURE_STREAM_PUBLISH, which also names a leader running single-active-consumer groups for
 * reads), each present only when both ends offered its feature bit: to a node of
 * an earlier version a Subscribe or DeclarePublisher there keeps its answer stream_not_available.
 */
import type { QueueSpec, StreamChunkSink, StreamPublisherHandle, StreamReadHandle, StreamReadTerms } from "../broker/index.js";
import type { SlabPool } from "../listeners/slab-pool.js";
import { FEATURE_STREAM_PUBLISH, FEATURE_STREAM_READ } from "./link-handshake.js";
import type { LinkWriter } from "./link-writer.js";
import { StreamPublishes } from "./stream-publishes.js";
import { StreamReads } from "./stream-reads.js";

type Queue = QueueSpec & { readonly vhost: string };

export class StreamLinkEnds {
  private readonly reads: StreamReads | null;
  private readonly publishes: StreamPublishes | null;

  constructor(features: number, writer: LinkWriter, queueId: (q: Queue) => number, slabs: SlabPool | null, up: () => boolean) {
    this.reads = (features & FEATURE_STREAM_READ) !== 0 ? new StreamReads((f) => writer.write(f), queueId, slabs, (features & FEATURE_STREAM_PUBLISH) !== 0) : null;
    this.publishes = (features & FEATURE_STREAM_PUBLISH) !== 0 ? new StreamPublishes(writer, queueId, up) : null;
  }

  read(queue: Queue, terms: StreamReadTerms, sink: StreamChunkSink): StreamReadHandle | null {
    return this.reads?.subscribe(queue, terms, sink) ?? null;
  }

  publisher(queue: Queue, reference: string): StreamPublisherHandle | null {
    return this.publishes?.publisher(queue, reference) ?? null;
  }

  /** A frame of theirs; false for another type. */
  onFrame(f: Buffer): boolean {
    return this.reads?.onFrame(f) === true || this.publishes?.onFrame(f) === true;
  }

  /** The link is lost: every read ends, no waiting batch is answered. */
  lose(): void {
    this.reads?.lose();
    this.publishes?.lose();
  }
}
