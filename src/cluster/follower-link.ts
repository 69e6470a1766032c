/**
 * The leader's end of one follower's replication connection: what the follower has
 * acknowledged, whether confirms wait for it, and its outgoing frames. Until the follower's
 * snapshot point, live frames are not for it (the snapshot holds them); while its snapshot
 * streams, live frames queue behind it; afterwards they go straight to the socket.
 */
import type { Socket } from "node:net";
import { FrameType, sendFrame } from "./replication-frames.js";

/** Unsent bytes beyond which a follower is too slow to keep: dropped, it full-syncs again. */
export const MAX_BACKLOG = 64 * 1024 * 1024;

export class FollowerLink {
  /** "waiting" (before its snapshot point), "snapshot" (streaming it), "live". */
  state: "waiting" | "snapshot" | "live" = "waiting";
  /** Last batch the follower wrote (and synced if asked). */
  acked = -1;
  /** Bytes of each store file the follower already holds and keeps (copy-manifest.ts); the rest is sent. */
  kept: ReadonlyMap<string, number> = new Map();
  /** The batch its snapshot ends with: acknowledging it means the snapshot is on its disk. */
  snapBatch = -1;
  /** Confirms wait for this follower's acknowledgement (a superset of the in-sync set). */
  required = false;
  /**
   * It kept a confirm waiting past the ack bound and confirms stopped waiting for it (follower-pace.ts),
   * until it is required again: for the machine rule (spread-machines.ts) its machine is not live
   * meanwhile, as if its connection had closed, so a stalled machine does not hold every confirm
   * until its connection is given up.
   */
  demoted = false;
  /** Once acknowledged (while required), the follower holds every confirmed message: it may be listed in sync. */
  joinTarget = Infinity;
  /** When its acknowledgements last moved on (performance.now()): a silent one is disconnected (follower-pace.ts). */
  lastAckAt = performance.now();
  closed = false;
  /** Corked until the end of the current synchronous run of sends (see send). */
  private corked = false;
  private readonly uncork = (): void => {
    this.corked = false;
    this.socket.uncork();
  };
  private queue: Array<{ type: FrameType; head: Buffer | null; pieces: readonly Buffer[] }> = [];
  private queuedBytes = 0;

  constructor(readonly name: string, readonly socket: Socket, private readonly onOverflow: (link: FollowerLink) => void) {}

  /** A live frame: dropped before the snapshot point, queued during the snapshot, sent after. */
  send(type: FrameType, head: Buffer | null, pieces: readonly Buffer[] = []): void {
    if (this.closed || this.state === "waiting") return;
    if (this.state === "snapshot") {
      this.queue.push({ type, head, pieces });
      for (const p of pieces) this.queuedBytes += p.length;
      if (this.queuedBytes > MAX_BACKLOG) this.onOverflow(this);
      return;
    }
    // One writev per group-commit batch: its frames are sent in one synchronous run (segment
    // pieces, then the batch's end), so the socket stays corked until that run is over.
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(this.uncork);
    }
    sendFrame(this.socket, type, head, pieces);
    if (this.socket.writableLength > MAX_BACKLOG) this.onOverflow(this);
  }


  /** The snapshot is fully written to the socket: the queued live frames follow it. */
  goLive(): void {
    this.state = "live";
    for (const f of this.queue) sendFrame(this.socket, f.type, f.head, f.pieces);
    this.queue = [];
    this.queuedBytes = 0;
  }

  close(): void {
    this.closed = true;
    this.queue = [];
    this.socket.destroy();
  }
}
