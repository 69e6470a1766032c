/**
 * The leader's replication (docs/CLUSTERING.md, "Replication" and "The confirm rule"). It is the
 * message store's StoreReplica: every byte the store writes is sent to each follower in the same
 * order, and a batch's confirms are released only under the confirm rule (canConfirm, below).
 * Invariant: every follower in `inSync` (as written in etcd) holds every confirmed message.
 * So a follower is added to etcd only after confirms have waited for it and it caught up, and
 * removed from etcd before any confirm goes out without it. A follower that keeps a confirm
 * waiting past the ack bound stops being required (follower-pace.ts) but stays connected, so one
 * silent node pauses the others' confirms for about that bound, not for the 5 s it takes to give
 * up on its connection.
 */
import type { Socket } from "node:net";
import type { Logger } from "../logging/logger.js";
import type { StoreReplica } from "../store/store-replica.js";
import { FollowerLink } from "./follower-link.js";
import { acceptFollower } from "./leader-handshake.js";
import { FrameType, f64, nameHead, u32 } from "./replication-frames.js";
import { FollowerCatchUp } from "./follower-catch-up.js";
import type { LinkedFollower } from "./spread-machines.js";
import { SegmentDigests } from "./segment-digests.js";
import { StreamDigests } from "./stream-digests.js";
import { StreamCommits } from "./stream-commits.js";
import { BatchClock, TICK_MS, mayRequire, nextInSync, paceVerdict, spareFor } from "./follower-pace.js";
import { statSync } from "node:fs";
import { join } from "node:path";
import { segmentFileName } from "../store/segment.js";

export interface LeaderHooks {
  /** Writes the in-sync set to etcd, guarded by this node still being leader; false if it is not. */
  writeInSync(followers: readonly string[]): Promise<boolean>;
  /** Followers that must be in sync for a confirm. */
  minInSync(): number;
  /**
   * Whether the in-sync followers are placed well enough to confirm, given the followers connected
   * now (a spread cluster's machine rule, spread-machines.ts). Absent: any placement is.
   */
  placed?(inSync: ReadonlySet<string>, connected: ReadonlyMap<string, LinkedFollower>): boolean;
  /** The lease is certainly alive in etcd: confirms may go out. */
  leaseValid(): boolean;
  /** The lease has certainly expired in etcd: this node no longer leads. */
  leaseExpired(): boolean;
  /** This node may no longer lead (lease gone, etcd refused a guarded write). */
  deposed(why: string): void;
  /** --replica-ack-timeout: ms a confirm waits for a required follower before it stops being required. */
  readonly ackTimeoutMs: number;
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
  /** The set an in-flight etcd write lists: until it lands, confirms wait for its members too. */
  private listing: readonly string[] = [];
  /** When each recent batch went out: how far behind an acknowledgement is (follower-pace.ts). */
  private readonly clock = new BatchClock();
  private lastBatch = 0;
  /** When the interval tick last ran: a late one means this event loop stalled (see tick). */
  private lastTick = performance.now();
  /** Connected followers on their way to live: their snapshots start at batch boundaries. */
  private readonly catchUp: FollowerCatchUp;
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
    this.catchUp = new FollowerCatchUp(dataDir, commits, { lastBatch: () => this.lastBatch, fenced: () => this.fenced, drop: (l, why) => this.drop(l, why) }, logger);
    this.timer = setInterval(() => this.tick(true), TICK_MS);
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
          if (type === FrameType.Manifest && link.state === "waiting") this.catchUp.manifest(link, payload);
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
    this.clock.sent(batch, performance.now());
    this.catchUp.batchStarted();
    if (this.links.size === 0) return;
    const b = Buffer.allocUnsafe(9);
    b.writeDoubleLE(batch, 0);
    b[8] = sync ? 1 : 0;
    for (const l of this.links.values()) l.send(FrameType.Batch, b);
  }

  batchWritten(): void {
    // The batch's fsync covered every sealed segment's last bytes: their digests are safe to keep.
    if (this.sealing !== null) this.digests.save(this.sealing);
    if (this.sealingStreams !== null) this.streamDigests.save(this.sealingStreams);
    this.sealing = null;
    this.sealingStreams = null;
    this.catchUp.batchWritten();
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

  /**
   * The confirm rule, asked once per batch (never per message): docs/CLUSTERING.md "The confirm
   * rule" and "Falling behind", with the machine rule of src/cluster/spread-machines.ts ("Copies on
   * other machines"). A batch is confirmed when the lease is certainly valid, at least min-in-sync
   * followers are listed in sync and placed as the machine rule wants, and every follower confirms
   * wait for — the *required* ones — acknowledged it. Every follower etcd lists, or is being told
   * to list (a write in flight, or one that failed and may have landed), must be among the
   * required: one gone or demoted holds confirms until etcd no longer lists it, which keeps the
   * invariant in this module's header.
   */
  private canConfirm(batch: number): boolean {
    if (!this.hooks.leaseValid() || this.inSync.size < this.hooks.minInSync()) return false;
    if (this.hooks.placed !== undefined && !this.hooks.placed(this.inSync, this.links)) return false;
    if (!this.allRequired(this.inSync) || !this.allRequired(this.listing)) return false;
    for (const l of this.links.values()) if (l.required && l.acked < batch) return false;
    return true;
  }

  /** Every follower named is connected and required (confirms wait for its acknowledgement). */
  private allRequired(names: Iterable<string>): boolean {
    for (const name of names) if (this.links.get(name)?.required !== true) return false;
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

  private acked(link: FollowerLink, batch: number): void {
    const now = performance.now();
    if (batch > link.acked) {
      link.acked = batch;
      link.lastAckAt = now;
    }
    if (!link.required && link.state === "live" && mayRequire(link.acked, link.snapBatch, this.lastBatch, this.clock.ageOf(link.acked, now), this.hooks.ackTimeoutMs, this.inSync.size < this.hooks.minInSync())) {
      // From now on confirms wait for it; once it has everything sent so far it may be listed in sync.
      link.required = true;
      link.demoted = false;
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

  private tick(timer = false): void {
    if (this.fenced) return;
    // Confirms wait while the lease is uncertain (canConfirm); only a lease that has certainly
    // expired in etcd deposes this leader (etcd-session.ts).
    if (this.hooks.leaseExpired()) return this.hooks.deposed("etcd lease not renewed in time");
    const p = this.pending[this.pendingHead];
    const now = performance.now();
    // A timer tick that comes late ran before this loop read the sockets: acknowledgements that
    // arrived during the stall are still unread, so the followers are judged on the next tick.
    const stalled = timer && now - this.lastTick > 2 * TICK_MS;
    if (timer) this.lastTick = now;
    const spare = p !== undefined && now - p.since > this.hooks.ackTimeoutMs && spareFor(p.batch, this.inSync, this.links, this.hooks.minInSync());
    for (const l of stalled ? [] : [...this.links.values()]) {
      const v = paceVerdict(l, p, spare, this.lastBatch, this.clock, now, this.hooks.ackTimeoutMs);
      // Demoted: out of the in-sync set (etcd first, below) rather than holding every confirm; still connected.
      if (v === "demote") this.demote(l, now - p!.since);
      else if (v === "drop") this.drop(l, "did not acknowledge in time");
    }
    const target = this.writing ? null : nextInSync(this.inSync, this.links);
    if (target !== null) this.writeInSync(target);
    this.evaluate();
  }

  /** A required follower kept a confirm waiting past the ack bound: confirms stop waiting for it once etcd no longer lists it. */
  private demote(link: FollowerLink, waitedMs: number): void {
    this.logger.warn("cluster: follower too slow to acknowledge; confirms no longer wait for it", { follower: link.name, waitedMs: Math.round(waitedMs), ackTimeoutMs: this.hooks.ackTimeoutMs });
    link.required = false;
    link.demoted = true;
    link.joinTarget = Infinity;
  }

  private writeInSync(target: string[]): void {
    this.writing = true;
    // After a failed write (which may have landed) the set it listed stays waited for too.
    this.listing = this.listing.length === 0 ? target : [...new Set([...this.listing, ...target])];
    this.hooks.writeInSync(target).then(
      (ok) => {
        this.writing = false;
        this.listing = [];
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
