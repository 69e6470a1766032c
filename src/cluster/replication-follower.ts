/**
 * A follower's end of replication: connects to the leader's replication port, tells it what its
 * copy holds (copy-manifest.ts), writes the snapshot (only what it lacked; files the leader does
 * not have are removed), then mirrors the leader's store files byte for byte, acknowledging each
 * batch once written (and fsynced when the leader asks). Writes are synchronous and in arrival
 * order: order is what keeps the copy exact. The fsync is not: it runs in the background (the
 * node also forwards client connections) while later frames are written, and one fsync covers
 * every batch that arrived before it started, so a busy leader's batches are acknowledged in
 * groups, the way its own group commit syncs them.
 */
import { AUDIT_DIR } from "../audit/audit-log.js";
import { applyAuditFrame } from "./audit-replica.js";
import { closeSync, existsSync, fdatasync, fdatasyncSync, fsyncSync, mkdirSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import type { Socket } from "node:net";
import { join } from "node:path";
import type { Logger } from "../logging/logger.js";
import { writeFileAtomicSync } from "../store/atomic-file.js";
import { DEFINITIONS_FILE } from "../store/definitions-file.js";
import { segmentFileName } from "../store/segment.js";
import { MAX_UNAUTHENTICATED_FRAME, NONCE_BYTES, followerProof, leaderProof, newNonce, proofMatches } from "./replication-auth.js";
import { FrameSplitter, FrameType, f64, nameHead, readName, sendFrame } from "./replication-frames.js";
import { auditFileNames, heldFiles, isNodeFileName, nodeFileNames, storeFileNames, type CatchUpCount } from "./copy-manifest.js";
import { SegmentDigests } from "./segment-digests.js";
import { StreamCopy } from "./stream-copy.js";
import type { StreamCommits } from "./stream-commits.js";
import { removeUnnamedStreamFiles, snapStreamFile, syncStreamDirs } from "./stream-snapshot.js";
import type { ReplicationTransport } from "./replication-transport.js";

const SEGMENT_NAME = /^messages\/(\d{8})\.seg$/;

export interface FollowTarget {
  readonly leader: string;
  readonly host: string;
  readonly port: number;
}

/**
 * Present while this node's copy may lack confirmed data (from the wipe before a full sync until
 * the snapshot is on disk): such a node must not campaign, even if etcd still lists it in sync.
 */
export const INCOMPLETE_MARKER = "cluster-copy-incomplete";

export function copyIncomplete(dataDir: string): boolean {
  return existsSync(join(dataDir, INCOMPLETE_MARKER));
}

export class ReplicationFollower {
  /** The snapshot is on disk: from here on the copy only grows by live frames. */
  synced = false;
  closed = false;
  /** The peer did not prove it holds the cluster's secret. */
  refused = false;
  private readonly socket: Socket;
  private readonly fds = new Map<string, number>();
  private readonly dirty = new Set<number>();
  private readonly messagesDir: string;
  /** Digests of the segments this copy receives whole (segment-digests.ts), for the next catch-up. */
  private readonly digests: SegmentDigests;
  /** The streams' segment files (stream-copy.ts); their descriptors share `dirty` and the fsync. */
  private readonly streams: StreamCopy;
  /** A snapshot is being written: the copy is marked incomplete. */
  private copying = false;
  /** Files the snapshot named (kept, appended to or rewritten). */
  private readonly snapshotNames = new Set<string>();
  private snapEnded = false;
  /** The leader proved it holds the cluster's secret (replication-auth.ts); until then only its Challenge is read. */
  private leaderProven = false;
  private readonly nonce = newNonce();
  /** The last batch whose frames are all written, and whether one since the last ack asked for an fsync. */
  private written = -1;
  private needSync = false;
  private acked = -1;
  /** An fsync is running: descriptors released meanwhile are closed when it ends. */
  private syncing = false;
  private closeLater: number[] = [];

  constructor(
    readonly target: FollowTarget,
    private readonly me: string,
    private readonly secret: Buffer,
    transport: ReplicationTransport,
    private readonly dataDir: string,
    private readonly logger: Logger,
    private readonly onClosed: (f: ReplicationFollower) => void,
    /** Where the leader's STREAM_COMMIT frames go: how far this node's consumers may read (stream-commits.ts). */
    private readonly commits: StreamCommits | null = null,
  ) {
    this.messagesDir = join(dataDir, "messages");
    this.digests = new SegmentDigests(this.messagesDir);
    this.streams = new StreamCopy(dataDir, (fd) => this.dirty.add(fd), (fd) => this.release(fd));
    const splitter = new FrameSplitter((type, payload) => (this.leaderProven ? this.apply(type, payload) : this.challenged(type, payload, splitter)));
    splitter.maxFrame = MAX_UNAUTHENTICATED_FRAME;
    this.socket = transport.connect(target.host, target.port, () => sendFrame(this.socket, FrameType.Hello, nameHead(me, this.nonce)));
    this.socket.setNoDelay(true);
    this.socket.on("data", (d: Buffer) => {
      try {
        splitter.push(d);
        this.settle();
      } catch (err) {
        this.logger.error("cluster: replication write failed", { err: (err as Error).message });
        this.close();
      }
    });
    this.socket.on("error", (err: Error & { code?: string }) => {
      // A certificate that does not verify is a configuration error worth saying, and retrying slowly.
      if (transport.tls && !this.leaderProven && /CERT|UNABLE_TO|SIGNATURE|ERR_SSL|ERR_TLS/.test(err.code ?? "")) {
        this.logger.error("cluster: the leader's TLS certificate did not verify; not following it", { leader: this.target.leader, err: err.message });
        this.refused = true;
      } else this.logger.debug("cluster: replication connection error", { err: err.message });
    });
    this.socket.on("close", () => this.close());
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
    for (const fd of this.fds.values()) this.release(fd);
    this.fds.clear();
    this.streams.close();
    this.dirty.clear();
    this.onClosed(this);
  }

  /** The leader's answer to Hello: its proof checked, ours sent; nothing is written before this. */
  private challenged(type: FrameType, p: Buffer, splitter: FrameSplitter): void {
    if (this.closed) return;
    const leaderNonce = p.subarray(0, NONCE_BYTES);
    if (type !== FrameType.Challenge || p.length <= NONCE_BYTES || !proofMatches(p.subarray(NONCE_BYTES), leaderProof(this.secret, this.nonce, leaderNonce, this.me))) {
      this.logger.error("cluster: the replication peer did not prove it holds the cluster's secret; not following it", { leader: this.target.leader });
      this.refused = true;
      return this.close();
    }
    this.leaderProven = true;
    splitter.maxFrame = Infinity;
    sendFrame(this.socket, FrameType.Proof, followerProof(this.secret, this.nonce, leaderNonce, this.me));
    // What this copy holds, so the leader sends only what it lacks (copy-manifest.ts). Nothing is
    // written here until the leader answers, which it does only after this list.
    const count: CatchUpCount = { hashedBytes: 0, trustedSegments: 0 };
    heldFiles(this.dataDir, count).then(
      (held) => {
        this.logger.info("cluster: catch-up manifest", { files: held.length, hashedBytes: count.hashedBytes, trustedSealedSegments: count.trustedSegments });
        if (!this.closed) sendFrame(this.socket, FrameType.Manifest, Buffer.from(JSON.stringify(held), "utf8"));
      },
      (err: unknown) => {
        this.logger.error("cluster: could not read this node's copy", { err: (err as Error).message });
        this.close();
      },
    );
  }

  private fd(name: string): number {
    let fd = this.fds.get(name);
    if (fd === undefined) {
      fd = openSync(join(this.dataDir, name), "a", 0o600);
      this.fds.set(name, fd);
    }
    return fd;
  }

  /**
   * The copy is marked incomplete only once a leader actually streams a snapshot (a dead leader's
   * key may linger for a lease TTL, and a copy marked for nothing would make this node
   * ineligible); from then until the snapshot is on disk this node may not campaign.
   */
  private beginSync(): void {
    if (this.copying) return;
    this.copying = true;
    mkdirSync(this.messagesDir, { recursive: true });
    mkdirSync(join(this.dataDir, AUDIT_DIR), { recursive: true });
    writeFileAtomicSync(join(this.dataDir, INCOMPLETE_MARKER), this.target.leader);
  }

  /** The snapshot is complete: files it did not name are not the leader's, and go. */
  private endSync(): void {
    for (const name of storeFileNames(this.dataDir)) {
      if (this.snapshotNames.has(name)) continue;
      rmSync(join(this.dataDir, name), { force: true });
      const seg = SEGMENT_NAME.exec(name);
      if (seg) this.digests.forget(Number(seg[1]));
    }
    if (!this.snapshotNames.has(DEFINITIONS_FILE)) rmSync(join(this.dataDir, DEFINITIONS_FILE), { force: true });
    for (const name of auditFileNames(this.dataDir)) if (!this.snapshotNames.has(name)) rmSync(join(this.dataDir, name), { force: true });
    // A node state file the leader does not have (an old leader's MQTT QoS 2 state) must not come back at a failover.
    for (const name of nodeFileNames(this.dataDir)) if (!this.snapshotNames.has(name)) rmSync(join(this.dataDir, name), { force: true });
    removeUnnamedStreamFiles(this.dataDir, this.snapshotNames, this.streams);
  }

  private apply(type: FrameType, p: Buffer): void {
    if (this.closed) return;
    switch (type) {
      case FrameType.SnapFile: {
        this.beginSync();
        const { name, rest } = readName(p);
        if (name.includes("..")) throw new Error(`bad file name in snapshot: ${name}`);
        this.snapshotNames.add(name);
        const offset = rest.readDoubleLE(0);
        const bytes = rest.subarray(8);
        if (name.startsWith("streams/")) return snapStreamFile(this.dataDir, name, offset, bytes, this.streams);
        // A file the snapshot rewrites or extends is not the one its digest described; a kept one is.
        const seg = SEGMENT_NAME.exec(name);
        if (seg && (offset === 0 || bytes.length > 0)) this.digests.forget(Number(seg[1]));
        const fd = openSync(join(this.dataDir, name), offset === 0 ? "w" : "r+", 0o600);
        try {
          for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off, offset + off);
          fdatasyncSync(fd);
        } finally {
          closeSync(fd);
        }
        return;
      }
      case FrameType.SnapEnd: {
        this.beginSync();
        this.endSync();
        this.snapEnded = true;
        const dir = openSync(this.messagesDir, "r");
        fsyncSync(dir);
        closeSync(dir);
        syncStreamDirs(this.dataDir, this.snapshotNames);
        return;
      }
      case FrameType.Defs:
        writeFileAtomicSync(join(this.dataDir, DEFINITIONS_FILE), p);
        return;
      case FrameType.NodeFile: {
        // Written (and synced) before the batches behind it are acknowledged: the leader's waiters count on it.
        const { name, rest } = readName(p);
        if (!isNodeFileName(name)) throw new Error(`bad node file name: ${name}`);
        writeFileAtomicSync(join(this.dataDir, name), rest);
        return;
      }
      case FrameType.AuditAppend:
      case FrameType.AuditDrop:
        applyAuditFrame(this.dataDir, type === FrameType.AuditAppend, p);
        return;
      case FrameType.Seg: {
        const segment = p.readUInt32LE(0);
        const dataLen = p.readUInt32LE(4);
        if (dataLen > 0) {
          const name = `messages/${segmentFileName(segment, "seg")}`;
          const data = p.subarray(8, 8 + dataLen);
          this.digests.appended(segment, [data], () => !this.fds.has(name) && (statSync(join(this.dataDir, name), { throwIfNoEntry: false })?.size ?? 0) === 0);
          this.append(name, data);
        }
        if (p.length > 8 + dataLen) this.append(`messages/${segmentFileName(segment, "acks")}`, p.subarray(8 + dataLen));
        return;
      }
      case FrameType.Delete: {
        const segment = p.readUInt32LE(0);
        this.digests.forget(segment);
        for (const ext of ["seg", "acks"] as const) {
          const name = `messages/${segmentFileName(segment, ext)}`;
          const fd = this.fds.get(name);
          if (fd !== undefined) {
            this.release(fd);
            this.fds.delete(name);
            this.dirty.delete(fd);
          }
          rmSync(join(this.dataDir, name), { force: true });
        }
        return;
      }
      case FrameType.StreamAppend:
        this.streams.append(p);
        return;
      case FrameType.StreamDrop:
        this.streams.drop(p);
        if (this.commits !== null) {
          const { name } = readName(p);
          if (!name.endsWith(".segment")) this.commits.dropped(name);
        }
        return;
      case FrameType.StreamCommit: {
        // Written synchronously as they came, the chunks it covers are in the files already.
        const { name, rest } = readName(p);
        this.commits?.set(name, rest.readDoubleLE(0));
        return;
      }
      case FrameType.StreamFile:
        this.streams.replace(p);
        return;
      case FrameType.Batch: {
        this.written = p.readDoubleLE(0);
        if (p[8] === 1) this.needSync = true;
        if (this.snapEnded && !this.synced) {
          // The snapshot, and so every message confirmed before it, is on disk.
          rmSync(join(this.dataDir, INCOMPLETE_MARKER), { force: true });
          this.synced = true;
          this.logger.info("cluster: full sync from the leader done", { leader: this.target.leader });
        }
        return;
      }
      default:
        return;
    }
  }

  /**
   * Acknowledges every batch written so far, after an fsync of the files they touched when one of
   * them asked for it. Invariant: an acknowledged batch that asked for an fsync is on disk.
   */
  private settle(): void {
    if (this.syncing || this.closed || this.written <= this.acked) return;
    const upTo = this.written;
    if (!this.needSync || this.dirty.size === 0) {
      this.needSync = false;
      return this.ack(upTo);
    }
    this.needSync = false;
    // Segments sealed by now have all their bytes among (or already behind) this fsync.
    const sealing = this.digests.sealed();
    const sealingStreams = this.streams.digests.sealed();
    const fds = [...this.dirty];
    this.dirty.clear();
    this.syncing = true;
    let left = fds.length;
    let failure: Error | null = null;
    for (const fd of fds) {
      fdatasync(fd, (err) => {
        if (err) failure = err;
        if (--left > 0) return;
        this.syncing = false;
        for (const c of this.closeLater) closeSync(c);
        this.closeLater = [];
        if (failure) {
          this.logger.error("cluster: replication fsync failed", { err: failure.message });
          return this.close();
        }
        this.digests.save(sealing);
        this.streams.digests.save(sealingStreams);
        this.ack(upTo);
        this.settle();
      });
    }
  }

  private ack(batch: number): void {
    if (this.closed) return;
    this.acked = batch;
    sendFrame(this.socket, FrameType.Ack, f64(batch));
  }

  /** Closes a descriptor, or after the running fsync if one is (it may be using it). */
  private release(fd: number): void {
    this.dirty.delete(fd);
    if (this.syncing) this.closeLater.push(fd);
    else closeSync(fd);
  }

  private append(name: string, bytes: Buffer): void {
    const fd = this.fd(name);
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    this.dirty.add(fd);
  }
}
