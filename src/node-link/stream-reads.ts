/**
 * The connecting node's end of native stream reads (stream-read-frames.ts): a subscription of a
 * client here on a stream the link's other end leads. It sends READ_SUBSCRIBE, forwards credit,
 * hands each READ_CHUNK to its sink with the chunk's bytes where the link read them (held under
 * a slab lease until the sink says they are written: no copy), and ends every read when the link
 * is lost. A chunk for a read cancelled meanwhile is dropped (the leader stops at the cancel).
 */
import type { QueueSpec, StreamChunkSink, StreamReadHandle, StreamReadTerms } from "../broker/index.js";
import type { SlabPool } from "../listeners/slab-pool.js";
import { FRAME_HEAD } from "./link-frames.js";
import { CHUNK_FIXED, READ_CANCEL, READ_CHUNK, READ_CREDIT, READ_ENDED, READ_STARTED, READ_UPDATE, endOf, idFrame, subscribeFrame, updatedFrame } from "./stream-read-frames.js";

type Queue = QueueSpec & { readonly vhost: string };

const NOTHING = (): void => undefined;

export class StreamReads {
  private readonly sinks = new Map<number, StreamChunkSink>();
  private next = 0;

  constructor(
    /** Writes one frame on the link. */
    private readonly write: (f: Buffer) => void,
    /** The queue's id on the link (told to the leader on first use). */
    private readonly queueId: (q: Queue) => number,
    private readonly slabs: SlabPool | null,
    /** The leader runs single-active-consumer groups for reads (FEATURE_STREAM_PUBLISH: READ_UPDATE). */
    private readonly groupsOnLeader: boolean,
  ) {}

  /** Null for a single-active-consumer read when the leader runs no groups for reads. */
  subscribe(queue: Queue, terms: StreamReadTerms, sink: StreamChunkSink): StreamReadHandle | null {
    if (!this.groupsOnLeader && terms.properties.get("single-active-consumer") === "true") return null;
    const id = ++this.next;
    const qid = this.queueId(queue);
    this.sinks.set(id, sink);
    this.write(subscribeFrame(id, qid, terms));
    return {
      credit: (n) => {
        if (n > 0 && this.sinks.has(id)) this.write(idFrame(READ_CREDIT, id, n));
      },
      cancel: () => {
        if (this.sinks.delete(id)) this.write(idFrame(READ_CANCEL, id));
      },
    };
  }

  /** A frame of 73–75 or 78; false for another type. */
  onFrame(f: Buffer): boolean {
    const type = f[4];
    if (type !== READ_STARTED && type !== READ_CHUNK && type !== READ_ENDED && type !== READ_UPDATE) return false;
    const id = f.readUInt32LE(FRAME_HEAD);
    const sink = this.sinks.get(id);
    // A read cancelled meanwhile: its turn is answered at once (the leader's group must not wait).
    if (sink === undefined) {
      if (type === READ_UPDATE) this.write(updatedFrame(id, null));
      return true;
    }
    if (type === READ_STARTED) sink.started();
    else if (type === READ_UPDATE) sink.update(f[FRAME_HEAD + 4] === 1, (start) => this.write(updatedFrame(id, start)));
    else if (type === READ_ENDED) {
      this.sinks.delete(id);
      sink.ended(endOf(f));
    } else {
      const bytes = f.subarray(FRAME_HEAD + CHUNK_FIXED);
      let done = NOTHING;
      if (this.slabs !== null) {
        // Held until the client's socket has written them (SlabLease: one holder after the hand-over).
        const lease = this.slabs.lease();
        lease.add(bytes);
        lease.handOver(1);
        done = () => lease.release();
      }
      const at = FRAME_HEAD + 4;
      sink.chunk(f.readDoubleLE(at), f.readUInt32LE(at + 8), f.readDoubleLE(at + 12), f.readDoubleLE(at + 20), bytes, done);
    }
    return true;
  }

  /** The link is lost: every read ends, its leader unavailable. */
  lose(): void {
    const sinks = [...this.sinks.values()];
    this.sinks.clear();
    for (const s of sinks) s.ended("unavailable");
  }
}
