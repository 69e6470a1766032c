/**
 * The leader's replication (docs/CLUSTERING.md, "Replication" and "The confirm rule"). It is the
 * message store's StoreReplica: every byte the store writes is sent to each follower in the same
 * order, and a batch's confirms are released only when
 *   - this node's etcd lease is certainly still valid,
 *   - every follower listed in sync, and every follower confirms wait for, acknowledged it,
 *   - at least min-in-sync-replicas followers are listed in sync,
 *   - and (a spread cluster's stores) they are on other machines while any other is live.
 * Invariant: every follower in `inSync` (as written in etcd) holds every confirmed message.
 * So a follower is added to etcd only after confirms have waited for it and it caught up, and
 * removed from etcd before any confirm goes out without it.
 */
import type { Socket } from "node:net";
import type { Logger } from "../logging/logger.js";
import type { StoreReplica } from "../store/store-replica.js";
import { FollowerLink } from "./follower-link.js";
import { acceptFollower } from "./leader-handshake.js";
import { FrameType, f64, nameHead, u32 } from "./replication-frames.js";
import { streamSnapshot, takeSnapshot } from "./snapshot-stream.js";
import { keptBytes, type CatchUpCount, type HeldFile } from "./copy-manifest.js";
import { SegmentDigests } from "./segment-digests.js";
import { StreamDigests } from "./stream-digests.js";
import { StreamCommits } from "./stream-commits.js";
import { statSync } from "node:fs";
import { join } from "node:path";
import { segmentFileName } from "../store/segment.js";

/** A follower that has not acknowledged a batch a confirm waits for within this long is dropped. */
export const LAG_LIMIT_MS = 5000;

export interface LeaderHooks {
  /** Writes the in-sync set to etcd, guarded by this node still being leader; false if it is not. */
  writeInSync(followers: readonly string[]): Promise<boolean>;
  /** Followers that must be in sync for a confirm. */
  minInSync(): number;
  /**
   * Whether the in-sync followers are placed well enough to confirm, given the followers connected
   * now (a spread cluster's machine rule, spread-machines.ts). Absent: any placement is.
   */
  placed?(inSync: ReadonlySet<string>, connected: ReadonlyMap<string, unknown>): boolean;
  /** The lease is certainly alive in etcd: confirms may go out. */
  leaseValid(): boolean;
  /** The lease has certainly expired in etcd: this node no longer leads. */
  leaseExpired(): boolean;
  /** This node may no longer lead (lease gone, etcd refused a guarded write). */
  deposed(why: string): void;
}

export class ReplicationLeader implements StoreReplica {
  private readonly links = new Map<string, FollowerLink>();
  /** Digests of the segments this leader writes (segment-digests.ts): a returning follower's catch-up compares them. */
  private readonly digests: SegmentDigests;
  /** The same for stream segments (stream-digests.ts). */
  private readonly streamDigests: StreamDigests;
  /** Sealed segments whose bytes the running sync batch makes durable. */
  private sealing: number[] | null = null;
  private sealingStreams: string[] | null = null;
  /** Followers listed in sync in etcd (this node excluded). */
  inSync = new Set<string>();
  private lastBatch = 0;
  /** A batch's bytes are being written locally: the files are not at a batch boundary. */
  private localPending = false;
  private snapshotWaiting: FollowerLink[] = [];
  /**
   * Batches whose confirms wait for followers, oldest first. The store does not wait for one
   * batch's replication before writing the next (pipelining), so several may wait at once; they
   * are released strictly in order, so confirms keep the order of their batches.
   */
  private pending: Array<{ batch: number; since: number; resolve: (ok: boolean) => void }> = [];
  private pendingHead = 0;
  private writing = false;
  private fenced = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly dataDir: string,
    /** The cluster's secret: a follower must prove it holds it (replication-auth.ts). */
    private readonly secret: Buffer,
    private readonly hooks: LeaderHooks,
    private readonly logger: Logger,
    /** This node's committed stream ends (stream-commits.ts), kept for the consumers it serves and sent to followers. */
    private readonly commits: StreamCommits = new StreamCommits(),
  ) {
    this.digests = new SegmentDigests(join(dataDir, "messages"));
    this.streamDigests = new StreamDigests(dataDir);
    this.timer = setInterval(() => this.tick(), 100);
    this.timer.unref();
  }

  /** Followers and whether each is in sync (for /api/nodes). */
  get followers(): ReadonlyMap<string, FollowerLink> {
    return this.links;
  }

  /**
   * A connection to the replication port: once it proved it holds the cluster's secret
   * (leader-handshake.ts) it is the follower it named, replacing an older link of that name.
   */
  accept(socket: Socket): void {
    acceptFollower(socket, this.secret, this.logger, (name) => {
      this.links.get(name)?.close();
      const link = new FollowerLink(name, socket, (l) => this.drop(l, "too far behind"));
      this.links.set(name, link);
      return {
        frame: (type, payload) => {
          if (type === FrameType.Manifest && link.state === "waiting") this.syncFrom(link, payload);
          else if (type === FrameType.Ack) this.acked(link, payload.readDoubleLE(0));
        },
        closed: () => {
          if (!link.closed) this.drop(link, "connection closed");
        },
      };
    });
    if (this.fenced) socket.destroy();
  }

  segmentWrite(segment: number, data: readonly Buffer[], acks: Buffer | null): void {
    if (data.length > 0) this.digests.appended(segment, data, () => (statSync(join(this.dataDir, "messages", segmentFileName(segment, "seg")), { throwIfNoEntry: false })?.size ?? 0) === 0);
    if (this.links.size === 0) return;
    let dataLen = 0;
    for (const d of data) dataLen += d.length;
    const head = Buffer.allocUnsafe(8);
    head.writeUInt32LE(segment, 0);
    head.writeUInt32LE(dataLen, 4);
    const pieces = acks === null ? data : [...data, acks];
    for (const l of this.links.values()) l.send(FrameType.Seg, head, pieces);
  }

  /** A stream's chunk, placed in this batch (StreamTap): followers write the same bytes at the same place. */
  streamAppend(file: string, position: number, pieces: readonly Buffer[]): void {
    this.streamDigests.appended(file, position, pieces);
    if (this.links.size === 0) return;
    const head = nameHead(file, f64(position));
    for (const l of this.links.values()) l.send(FrameType.StreamAppend, head, pieces);
  }

  /** Retention dropped a stream segment, or a stream was deleted: followers delete the same. */
  streamDrop(path: string): void {
    this.streamDigests.forget(path);
    if (!path.endsWith(".segment")) this.commits.dropped(path);
    for (const l of this.links.values()) l.send(FrameType.StreamDrop, nameHead(path));
  }

  /** A stream's side file was replaced (StreamTap): followers replace theirs with the same bytes. */
  streamFileReplaced(file: string, bytes: Buffer): void {
    for (const l of this.links.values()) l.send(FrameType.StreamFile, nameHead(file), [bytes]);
  }

  /** A stream's commit moved (or was announced after recovery): followers' consumers may read that far. */
  streamCommitted(dir: string, nextOffset: number): void {
    this.commits.set(dir, nextOffset);
    for (const l of this.links.values()) l.send(FrameType.StreamCommit, nameHead(dir, f64(nextOffset)));
  }

  batchEnd(batch: number, sync: boolean): void {
    if (sync) {
      this.sealing = this.digests.sealed();
      this.sealingStreams = this.streamDigests.sealed();
    }
    this.lastBatch = batch;
    this.localPending = true;
    if (this.links.size === 0) return;
    const b = Buffer.allocUnsafe(9);
    b.writeDoubleLE(batch, 0);
    b[8] = sync ? 1 : 0;
    for (const l of this.links.values()) l.send(FrameType.Batch, b);
  }

  batchWritten(): void {
    this.localPending = false;
    // The batch's fsync covered every sealed segment's last bytes: their digests are safe to keep.
    if (this.sealing !== null) this.digests.save(this.sealing);
    if (this.sealingStreams !== null) this.streamDigests.save(this.sealingStreams);
    this.sealing = null;
    this.sealingStreams = null;
    if (this.snapshotWaiting.length === 0) return;
    const waiting = this.snapshotWaiting;
    this.snapshotWaiting = [];
    for (const l of waiting) if (!l.closed) this.startSnapshot(l);
  }

  segmentDeleted(segment: number): void {
    this.digests.forget(segment);
    for (const l of this.links.values()) l.send(FrameType.Delete, u32(segment));
  }

  /** A node state file was replaced (NodeFileTap): followers replace theirs with the same bytes, in order with the store's frames. */
  nodeFileReplaced(name: string, bytes: Buffer): void {
    for (const l of this.links.values()) l.send(FrameType.NodeFile, nameHead(name), [bytes]);
  }

  definitionsWritten(json: string): void {
    if (this.links.size === 0) return;
    const bytes = Buffer.from(json, "utf8");
    for (const l of this.links.values()) l.send(FrameType.Defs, null, [bytes]);
  }

  /** The audit trail appended to one of its files (src/audit/audit-log.ts): followers append the same bytes. */
  auditAppended(file: string, bytes: Buffer): void {
    for (const l of this.links.values()) l.send(FrameType.AuditAppend, nameHead(file), [bytes]);
  }

  auditDropped(file: string): void {
    for (const l of this.links.values()) l.send(FrameType.AuditDrop, nameHead(file));
  }

  replicated(batch: number): Promise<boolean> {
    if (this.fenced) return Promise.resolve(false);
    if (this.pendingHead === this.pending.length && this.canConfirm(batch)) return Promise.resolve(true);
    return new Promise((resolve) => {
      this.pending.push({ batch, since: performance.now(), resolve });
    });
  }

  writeFailed(): void {
    this.digests.clear();
    this.streamDigests.clear();
    this.sealing = null;
    this.sealingStreams = null;
    // docs/CLUSTERING.md, states: a leader whose local write failed is fenced; followers full-sync
    // from the next leader, which discards the bytes this one gave up.
    this.hooks.deposed("local message store write failed");
  }

  /** Leadership is over: nothing more is confirmed, followers are disconnected. */
  fence(): void {
    if (this.fenced) return;
    this.fenced = true;
    clearInterval(this.timer);
    for (let i = this.pendingHead; i < this.pending.length; i++) this.pending[i]!.resolve(false);
    this.pending = [];
    this.pendingHead = 0;
    for (const l of this.links.values()) l.close();
    this.links.clear();
  }

  private canConfirm(batch: number): boolean {
    if (!this.hooks.leaseValid()) return false;
    if (this.inSync.size < this.hooks.minInSync()) return false;
    if (this.hooks.placed !== undefined && !this.hooks.placed(this.inSync, this.links)) return false;
    for (const name of this.inSync) {
      const l = this.links.get(name);
      if (!l || !l.required || l.acked < batch) return false;
    }
    for (const l of this.links.values()) if (l.required && l.acked < batch) return false;
    return true;
  }

  private evaluate(): void {
    const q = this.pending;
    while (this.pendingHead < q.length && this.canConfirm(q[this.pendingHead]!.batch)) q[this.pendingHead++]!.resolve(true);
    if (this.pendingHead === q.length || this.pendingHead > 1024) {
      this.pending = q.slice(this.pendingHead);
      this.pendingHead = 0;
    }
  }

  /**
   * A follower said what it holds: the bytes it may keep are worked out (hashing, off the event
   * loop), then its snapshot starts at the next batch boundary. Live frames meanwhile are not for
   * it: the snapshot, taken after, contains them.
   */
  private syncFrom(link: FollowerLink, manifest: Buffer): void {
    let held: HeldFile[];
    try {
      held = JSON.parse(manifest.toString("utf8")) as HeldFile[];
      if (!Array.isArray(held)) throw new Error("not a list");
    } catch (err) {
      return this.drop(link, `bad manifest: ${(err as Error).message}`);
    }
    this.logger.info("cluster: follower connected; syncing", { follower: link.name, filesHeld: held.length });
    const count: CatchUpCount = { hashedBytes: 0, trustedSegments: 0 };
    const started = performance.now();
    keptBytes(this.dataDir, held, count).then(
      (kept) => {
        this.logger.info("cluster: catch-up compared", { follower: link.name, hashedBytes: count.hashedBytes, trustedSealedSegments: count.trustedSegments, ms: Math.round(performance.now() - started) });
        if (link.closed || this.fenced) return;
        link.kept = kept;
        if (this.localPending) this.snapshotWaiting.push(link);
        else this.startSnapshot(link);
      },
      (err: unknown) => this.drop(link, `could not compare copies: ${(err as Error).message}`),
    );
  }

  private startSnapshot(link: FollowerLink): void {
    const files = takeSnapshot(this.dataDir);
    link.state = "snapshot";
    link.snapBatch = this.lastBatch;
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
        this.drop(link, "snapshot failed");
      },
    );
  }

  private acked(link: FollowerLink, batch: number): void {
    if (batch > link.acked) link.acked = batch;
    if (!link.required && link.state === "live" && link.acked >= link.snapBatch) {
      // From now on confirms wait for it; once it has everything sent so far it may be listed in sync.
      link.required = true;
      link.joinTarget = this.lastBatch;
    }
    this.evaluate();
  }

  private drop(link: FollowerLink, why: string): void {
    if (link.closed && this.links.get(link.name) !== link) return;
    this.logger.warn("cluster: follower dropped", { follower: link.name, why });
    link.close();
    if (this.links.get(link.name) === link) this.links.delete(link.name);
    this.tick();
  }

  private tick(): void {
    if (this.fenced) return;
    // Confirms wait while the lease is uncertain (canConfirm); only a lease that has certainly
    // expired in etcd deposes this leader (etcd-session.ts).
    if (this.hooks.leaseExpired()) return this.hooks.deposed("etcd lease not renewed in time");
    const p = this.pending[this.pendingHead];
    if (p && performance.now() - p.since > LAG_LIMIT_MS) {
      for (const l of [...this.links.values()]) if (l.required && l.acked < p.batch) this.drop(l, "did not acknowledge in time");
    }
    if (!this.writing) {
      // Removals first (etcd before confirms), then additions (confirms already wait for them).
      const keep = [...this.inSync].filter((n) => this.links.get(n)?.required === true);
      let target = keep;
      if (keep.length === this.inSync.size) {
        target = [...this.inSync];
        for (const l of this.links.values()) if (l.required && l.acked >= l.joinTarget && !this.inSync.has(l.name)) target.push(l.name);
      }
      if (target.length !== this.inSync.size || target.some((n) => !this.inSync.has(n))) this.writeInSync(target);
    }
    this.evaluate();
  }

  private writeInSync(target: string[]): void {
    this.writing = true;
    this.hooks.writeInSync(target).then(
      (ok) => {
        this.writing = false;
        if (!ok) return this.hooks.deposed("etcd refused the in-sync write (no longer leader)");
        this.logger.info("cluster: in-sync set", { followers: target });
        this.inSync = new Set(target);
        this.tick();
      },
      (err: unknown) => {
        // etcd unreachable: retried on the next tick; the lease check fences if it lasts.
        this.writing = false;
        this.logger.warn("cluster: in-sync write failed", { err: (err as Error).message });
      },
    );
  }
}
