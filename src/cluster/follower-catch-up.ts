/**
 * A connected follower's way to live (docs/CLUSTERING.md, "Replication"): it says what it holds
 * (its manifest), the bytes it may keep are worked out off the event loop, and its snapshot of the
 * rest starts at the next batch boundary. Owned by the replication leader, which tells it where
 * the store's batches begin and end.
 * Invariant: a snapshot is taken only between batches (no batch's bytes half written locally), so
 * the snapshot plus the live frames sent after it are exactly the leader's files.
 */
import type { Logger } from "../logging/logger.js";
import type { FollowerLink } from "./follower-link.js";
import { FrameType, f64, nameHead } from "./replication-frames.js";
import { streamSnapshot, takeSnapshot } from "./snapshot-stream.js";
import { keptBytes, type CatchUpCount, type HeldFile } from "./copy-manifest.js";
import type { StreamCommits } from "./stream-commits.js";

/** What the catch-up asks of its leader. */
export interface CatchUpLeader {
  /** The last batch sent to followers: a snapshot taken now holds everything up to it. */
  lastBatch(): number;
  /** Leadership is over: nothing more is sent. */
  fenced(): boolean;
  /** Gives up on a follower (closes its link). */
  drop(link: FollowerLink, why: string): void;
}

export class FollowerCatchUp {
  /** A batch's bytes are being written locally: the files are not at a batch boundary. */
  private localPending = false;
  private waiting: FollowerLink[] = [];

  constructor(
    private readonly dataDir: string,
    private readonly commits: StreamCommits,
    private readonly leader: CatchUpLeader,
    private readonly logger: Logger,
  ) {}

  /** The store began a batch: snapshots wait for its end. */
  batchStarted(): void {
    this.localPending = true;
  }

  /** The batch is written: the snapshots that waited for a boundary start. */
  batchWritten(): void {
    this.localPending = false;
    if (this.waiting.length === 0) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const l of waiting) if (!l.closed) this.startSnapshot(l);
  }

  /**
   * A follower said what it holds: the bytes it may keep are worked out (hashing, off the event
   * loop), then its snapshot starts at the next batch boundary. Live frames meanwhile are not for
   * it: the snapshot, taken after, contains them.
   */
  manifest(link: FollowerLink, manifest: Buffer): void {
    let held: HeldFile[];
    try {
      held = JSON.parse(manifest.toString("utf8")) as HeldFile[];
      if (!Array.isArray(held)) throw new Error("not a list");
    } catch (err) {
      return this.leader.drop(link, `bad manifest: ${(err as Error).message}`);
    }
    this.logger.info("cluster: follower connected; syncing", { follower: link.name, filesHeld: held.length });
    const count: CatchUpCount = { hashedBytes: 0, trustedSegments: 0 };
    const started = performance.now();
    keptBytes(this.dataDir, held, count).then(
      (kept) => {
        this.logger.info("cluster: catch-up compared", { follower: link.name, hashedBytes: count.hashedBytes, trustedSealedSegments: count.trustedSegments, ms: Math.round(performance.now() - started) });
        if (link.closed || this.leader.fenced()) return;
        link.kept = kept;
        if (this.localPending) this.waiting.push(link);
        else this.startSnapshot(link);
      },
      (err: unknown) => this.leader.drop(link, `could not compare copies: ${(err as Error).message}`),
    );
  }

  private startSnapshot(link: FollowerLink): void {
    const files = takeSnapshot(this.dataDir);
    link.state = "snapshot";
    link.snapBatch = this.leader.lastBatch();
    streamSnapshot(link, files, link.snapBatch).then(
      ({ sent, kept }) => {
        this.logger.info("cluster: snapshot sent", { follower: link.name, files: files.length, sentBytes: sent, keptBytes: kept });
        if (link.closed) return;
        link.goLive();
        // The snapshot holds every committed chunk: the follower may serve them from now on.
        for (const [dir, next] of this.commits.entries()) link.send(FrameType.StreamCommit, nameHead(dir, f64(next)));
      },
      (err: unknown) => {
        this.logger.warn("cluster: snapshot stream failed", { follower: link.name, err: (err as Error).message });
        this.leader.drop(link, "snapshot failed");
      },
    );
  }
}
