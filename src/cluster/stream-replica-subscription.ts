/**
 * A native subscription served from this node's own copy of a stream (docs/STREAMS.md,
 * "Followers serve the stream port"): whole committed chunks, read by a ReplicaCursor, sent as
 * Deliver v1 or v2 while the client's chunk credit lasts, woken by each commit the node learns
 * (stream-commits.ts). It stops sending while the socket's buffer is full and resumes when told.
 */
import { join } from "node:path";
import type { StreamStart } from "../broker/index.js";
import { STREAMS_DIR, streamDirId } from "../store/stream/stream-files.js";
import { CMD } from "../stream/protocol.js";
import { FrameWriter } from "../stream/wire.js";
import type { StreamCommits } from "./stream-commits.js";
import { ReplicaCursor } from "./stream-replica-reader.js";
import { chunkForClient, filterOf } from "../store/stream/chunk-format.js";
import { ChunkMatcher, filterFromProperties } from "../store/stream/chunk-filter.js";

export interface ReplicaSink {
  /** Sends a frame's pieces to the client; false when its socket buffer is full. */
  send(pieces: readonly Buffer[]): boolean;
  /** Calls `fn` once the client's socket has drained. */
  whenWritable(fn: () => void): void;
  /** The Deliver version the client agreed on (2 after ExchangeCommandVersions says so). */
  readonly deliverVersion: number;
}

export class ReplicaSubscription {
  /** The offset after the last chunk sent (where a re-subscription continues). */
  next: number;
  private readonly cursor: ReplicaCursor;
  private readonly dir: string;
  private readonly unwatch: () => void;
  private blocked = false;
  /** The consumer's chunk filter (filter.N, match-unfiltered); null: every chunk. */
  private readonly matcher: ChunkMatcher | null;
  private stopped = false;

  constructor(
    readonly id: number,
    readonly stream: string,
    readonly properties: ReadonlyMap<string, string>,
    vhost: string,
    dataDir: string,
    start: StreamStart,
    private credit: number,
    private readonly commits: StreamCommits,
    private readonly sink: ReplicaSink,
  ) {
    this.dir = `${STREAMS_DIR}/${streamDirId(vhost, stream)}`;
    this.cursor = new ReplicaCursor(join(dataDir, this.dir));
    this.next = this.cursor.seek(start, commits.get(this.dir));
    this.unwatch = commits.watch(this.dir, () => this.pump());
    const filter = filterFromProperties(properties);
    this.matcher = filter === null ? null : new ChunkMatcher(filter);
  }

  addCredit(n: number): void {
    this.credit += n;
    this.pump();
  }

  /** Sends what credit, the committed end and the socket allow. */
  pump(): void {
    while (!this.stopped && !this.blocked && this.credit > 0) {
      const committed = this.commits.get(this.dir);
      const chunk = this.cursor.next(committed);
      if (chunk === null) return;
      this.next = chunk.firstOffset + chunk.count;
      if (this.matcher !== null && !this.matcher.matches(filterOf(chunk.bytes))) continue;
      this.credit--;
      const v2 = this.sink.deliverVersion >= 2;
      const head = new FrameWriter(CMD.deliver, v2 ? 2 : 1, 17).u8(this.id);
      // v2's committed chunk id: this chunk, the newest committed one this node can vouch for.
      if (v2) head.u64(chunk.firstOffset);
      const frame = head.frame();
      const parts = chunkForClient(chunk.bytes);
      let size = 0;
      for (const p of parts) size += p.length;
      frame.writeUInt32BE(frame.length - 4 + size, 0);
      if (!this.sink.send([frame, ...parts])) {
        this.blocked = true;
        this.sink.whenWritable(() => {
          this.blocked = false;
          this.pump();
        });
      }
    }
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.unwatch();
    this.cursor.close();
  }
}
