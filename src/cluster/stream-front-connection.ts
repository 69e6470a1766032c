/**
 * One stream-protocol client of a node that does not lead, or did not when the client came
 * (docs/STREAMS.md, "Followers serve the stream port"). Frames go both ways between the client
 * and an Upstream to the leader, whole and unchanged, except subscriptions: a Subscribe is sent
 * to the leader with no credit (so the leader checks permission, the stream and the offset
 * specification, and lists the consumer), and once the leader accepts it, the chunks come from
 * this node's own files (ReplicaSubscription) as its commits allow; Credit for it stays here.
 * A single-active-consumer subscription is the leader's alone (its group lives there).
 *
 * When the upstream closes (the leader died), the client's publishers and leader-served
 * subscriptions are gone, as in RabbitMQ: MetadataUpdate (stream not available) names their
 * streams. The connection stays open: local subscriptions go on, and as soon as a leader is known
 * (this node, if elected) a new upstream replays the client's handshake and takes the frames on.
 */
import type { Socket } from "node:net";
import type { StreamStart } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import { FrameSplitter } from "../stream/frame-splitter.js";
import { CMD, OFFSET_TYPE, RC, RESPONSE, SERVER_VERSIONS } from "../stream/protocol.js";
import { FrameCursor, FrameWriter } from "../stream/wire.js";
import type { StreamCommits } from "./stream-commits.js";
import { Upstream, type UpstreamEndpoint } from "./stream-front-upstream.js";
import { ReplicaSubscription } from "./stream-replica-subscription.js";
import { metadataForTls, type TlsPortOf } from "./stream-front-metadata.js";
import { handshakeWithExternal, vouchedAuthenticate } from "./stream-front-external.js";

export interface FrontHost {
  readonly dataDir: string;
  readonly commits: StreamCommits;
  readonly log: Logger;
  /** The leader's stream listener; null while none is known. */
  leader(): UpstreamEndpoint | null;
  /** This node's advertised stream host and port, told to its clients in Open's response. */
  advertised(): UpstreamEndpoint | null;
  /** For a client of the TLS listener: maps the leader's Metadata (plain ports) to TLS ports; null on the plain listener. */
  readonly tlsPortOf: TlsPortOf | null;
  /** How long a client may wait for a leader before it is closed (ms). */
  readonly waitMs: number;
  forget(c: FrontConnection): void;
}

/** Frames a client may send before and while logging in: replayed to each new upstream. */
const HANDSHAKE = new Set<number>([CMD.peerProperties, CMD.saslHandshake, CMD.saslAuthenticate, CMD.tune, CMD.open, CMD.exchangeCommandVersions]);
/** A client's frames held while no upstream is ready beyond this close it (a publisher cannot outrun a failover). */
const MAX_HELD_BYTES = 16 * 1024 * 1024;
/** Correlation ids of the subscriptions this node re-sends to a new leader (responses kept from the client). */
let internalCorrelation = 0x7f00_0000;

interface PendingSubscribe {
  readonly id: number;
  readonly stream: string;
  readonly start: StreamStart;
  /** The subscription's credit, with any Credit sent before the leader answered. */
  credit: number;
  readonly properties: ReadonlyMap<string, string>;
}

/** The frame's bytes with its size prefix (a body from FrameSplitter is a slice just after it). */
function whole(body: Buffer): Buffer {
  return Buffer.from(body.buffer, body.byteOffset - 4, body.length + 4);
}

function offsetSpec(c: FrameCursor): StreamStart | null {
  const type = c.u16();
  if (type === OFFSET_TYPE.first) return { kind: "first" };
  if (type === OFFSET_TYPE.last) return { kind: "last" };
  if (type === OFFSET_TYPE.next) return { kind: "next" };
  if (type === OFFSET_TYPE.offset) return { kind: "offset", offset: c.u64() };
  if (type === OFFSET_TYPE.timestamp) return { kind: "timestamp", ms: c.i64() };
  return null;
}

export class FrontConnection {
  private readonly splitter = new FrameSplitter(MAX_HELD_BYTES);
  private upstream: Upstream | null = null;
  private readonly handshake: Buffer[] = [];
  private opened = false;
  private closing = false;
  private closed = false;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private vhost = "/";
  deliverVersion = 1;
  private readonly local = new Map<number, ReplicaSubscription>();
  private readonly pendingSubs = new Map<number, PendingSubscribe>();
  private readonly remoteSubs = new Map<number, string>();
  private readonly publishers = new Map<number, string>();
  private readonly pendingPublishers = new Map<number, { id: number; stream: string }>();
  private readonly swallow = new Set<number>();
  private waitTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly client: Socket,
    private readonly host: FrontHost,
    /** For a TLS client with a verified certificate: the login this node vouches for (stream-front-external.ts); null otherwise. */
    private readonly vouch: Buffer | null = null,
  ) {
    client.setNoDelay(true);
    client.on("data", (d: Buffer) => {
      const r = this.splitter.push(d, (body) => {
        this.fromClient(body);
        return !this.closed;
      });
      if (r !== null) this.close();
    });
    client.on("error", () => undefined);
    client.on("close", () => this.close());
    this.connectUpstream();
  }

  /**
   * The cluster's leader may have changed: an open connection without upstream gets one, and one
   * still replaying its handshake to another node (a leader that stopped answering) starts over.
   */
  leaderChanged(): void {
    if (this.closed) return;
    const up = this.upstream;
    const target = this.host.leader();
    if (up !== null && !up.ready && target !== null && (up.target.host !== target.host || up.target.port !== target.port)) {
      this.upstream = null;
      up.close();
    }
    if (this.upstream === null) this.connectUpstream();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.waitTimer) clearTimeout(this.waitTimer);
    for (const s of this.local.values()) s.stop();
    this.local.clear();
    this.upstream?.close();
    this.upstream = null;
    this.client.destroy();
    this.host.forget(this);
  }

  private connectUpstream(): void {
    const target = this.host.leader();
    if (target === null) {
      // No leader known: a client logging in waits (its frames held) up to a lease TTL for one; an
      // open connection waits for the election, its subscriptions served meanwhile.
      if (!this.opened) {
        this.waitTimer ??= setTimeout(() => {
          if (this.upstream === null) this.close();
        }, this.host.waitMs);
      }
      return;
    }
    if (this.waitTimer) clearTimeout(this.waitTimer);
    this.waitTimer = null;
    const replay = this.opened ? this.handshake : null;
    const up: Upstream = new Upstream(target, replay, {
      ready: () => this.upstreamReady(up),
      frame: (body) => this.fromLeader(body),
      closed: () => this.upstreamClosed(up),
    });
    this.upstream = up;
  }

  private upstreamReady(up: Upstream): void {
    if (this.upstream !== up) return;
    // A new leader after a failover: it is told of the subscriptions this node serves, at their positions.
    if (this.opened) for (const s of this.local.values()) this.resubscribe(up, s);
    const held = this.held;
    this.held = [];
    this.heldBytes = 0;
    for (const f of held) up.send([f]);
  }

  private upstreamClosed(up: Upstream): void {
    if (this.upstream !== up) return;
    this.upstream = null;
    if (this.closing || !this.opened) return this.close();
    const streams = new Set<string>([...this.publishers.values(), ...this.remoteSubs.values()]);
    this.publishers.clear();
    this.remoteSubs.clear();
    this.pendingPublishers.clear();
    for (const stream of streams) this.toClient([new FrameWriter(CMD.metadataUpdate, 1, 32).u16(RC.streamNotAvailable).str(stream).frame()]);
    this.host.log.debug("stream front: leader connection lost; waiting for a leader", { localSubscriptions: this.local.size, notified: streams.size });
    setTimeout(() => this.leaderChanged(), 200).unref();
  }

  private resubscribe(up: Upstream, s: ReplicaSubscription): void {
    const corr = internalCorrelation++;
    this.swallow.add(corr);
    const f = new FrameWriter(CMD.subscribe, 1, 64).u32(corr).u8(s.id).str(s.stream).u16(OFFSET_TYPE.offset).u64(s.next).u16(0).map(s.properties).frame();
    up.send([f]);
  }

  private toUpstream(frame: Buffer): void {
    const up = this.upstream;
    if (up !== null && up.ready) return up.send([frame]);
    // Copied: the splitter's buffer is reused for the next frames.
    this.held.push(Buffer.from(frame));
    this.heldBytes += frame.length;
    if (this.heldBytes > MAX_HELD_BYTES) this.close();
  }

  private toClient(pieces: readonly Buffer[]): boolean {
    if (this.closed) return false;
    if (pieces.length === 1) return this.client.write(pieces[0]!);
    this.client.cork();
    for (const p of pieces) this.client.write(p);
    this.client.uncork();
    return this.client.writableLength < this.client.writableHighWaterMark;
  }

  private fromClient(body: Buffer): void {
    const key = body.readUInt16BE(0);
    const frame = (key === CMD.saslAuthenticate && this.vouch !== null ? vouchedAuthenticate(body, this.vouch) : null) ?? whole(body);
    try {
      if (HANDSHAKE.has(key)) this.handshakeFrame(key, body, frame);
      else if (key === CMD.subscribe) return this.subscribe(body, frame);
      else if (key === CMD.credit) {
        const c = new FrameCursor(body.subarray(4));
        const id = c.u8();
        const s = this.local.get(id);
        if (s !== undefined) return s.addCredit(c.u16());
        // Credit for a subscription the leader has not answered yet is this node's too.
        for (const p of this.pendingSubs.values()) if (p.id === id) return void (p.credit += c.u16());
      } else if (key === CMD.unsubscribe) {
        const c = new FrameCursor(body.subarray(4));
        c.u32();
        const id = c.u8();
        this.local.get(id)?.stop();
        this.local.delete(id);
        this.remoteSubs.delete(id);
      } else if (key === CMD.declarePublisher) {
        const c = new FrameCursor(body.subarray(4));
        const corr = c.u32();
        const id = c.u8();
        c.str();
        this.pendingPublishers.set(corr, { id, stream: c.str() ?? "" });
      } else if (key === CMD.deletePublisher) {
        const c = new FrameCursor(body.subarray(4));
        c.u32();
        this.publishers.delete(c.u8());
      } else if (key === CMD.close) this.closing = true;
    } catch {
      // A malformed frame is the leader's to answer (it closes as RabbitMQ does): sent on as it is.
    }
    this.toUpstream(frame);
  }

  private handshakeFrame(key: number, body: Buffer, frame: Buffer): void {
    // The command versions come after Open: kept too, so a new leader sends the same Deliver version.
    if (!this.opened || (key === CMD.exchangeCommandVersions && !this.handshake.some((f) => f.readUInt16BE(4) === key))) this.handshake.push(Buffer.from(frame));
    const c = new FrameCursor(body.subarray(4));
    if (key === CMD.open) {
      c.u32();
      this.vhost = c.str() ?? "/";
    } else if (key === CMD.exchangeCommandVersions) {
      c.u32();
      const n = c.count(6);
      for (let i = 0; i < n; i++) {
        const [k, , max] = [c.u16(), c.u16(), c.u16()];
        const ours = SERVER_VERSIONS.find((v) => v[0] === CMD.deliver)![2];
        if (k === CMD.deliver) this.deliverVersion = Math.min(max, ours);
      }
    }
  }

  private subscribe(body: Buffer, frame: Buffer): void {
    const c = new FrameCursor(body.subarray(4));
    const corr = c.u32();
    const id = c.u8();
    const stream = c.str() ?? "";
    const start = offsetSpec(c);
    // Where the credit sits in the frame: its size prefix, key and version, then what was read.
    const creditAt = 4 + 4 + (body.length - 4 - c.remaining);
    const credit = c.u16();
    const properties = c.remaining > 0 ? c.map() : new Map<string, string>();
    if (start === null || properties.get("single-active-consumer") === "true") {
      // The leader's: a single active consumer's group lives there (and a bad frame is its to refuse).
      this.remoteSubs.set(id, stream);
      return this.toUpstream(frame);
    }
    this.pendingSubs.set(corr, { id, stream, start, credit, properties });
    const copy = Buffer.from(frame);
    copy.writeUInt16BE(0, creditAt);
    this.toUpstream(copy);
  }

  private fromLeader(body: Buffer): void {
    const key = body.readUInt16BE(0);
    if (key === (CMD.subscribe | RESPONSE) || key === (CMD.declarePublisher | RESPONSE) || key === (CMD.open | RESPONSE)) {
      const corr = body.readUInt32BE(4);
      const ok = body.readUInt16BE(8) === RC.ok;
      if (this.swallow.delete(corr)) return;
      if (key === (CMD.open | RESPONSE) && ok) {
        this.opened = true;
        return this.answerOpen(corr, body);
      }
      const pub = key === (CMD.declarePublisher | RESPONSE) ? this.pendingPublishers.get(corr) : undefined;
      if (pub !== undefined) {
        this.pendingPublishers.delete(corr);
        if (ok) this.publishers.set(pub.id, pub.stream);
      }
      const sub = key === (CMD.subscribe | RESPONSE) ? this.pendingSubs.get(corr) : undefined;
      if (sub !== undefined) {
        this.pendingSubs.delete(corr);
        if (ok) return this.startLocal(sub, whole(body));
      }
    } else if (key === (CMD.unsubscribe | RESPONSE) && this.swallow.delete(body.readUInt32BE(4))) return;
    else if (key === (CMD.metadata | RESPONSE) && this.host.tlsPortOf !== null) return void this.toClient([metadataForTls(body, this.host.tlsPortOf)]);
    else if (key === (CMD.saslHandshake | RESPONSE) && this.vouch !== null) return void this.toClient([handshakeWithExternal(body)]);
    else if (key === CMD.metadataUpdate) this.streamGone(new FrameCursor(body.subarray(6)).str() ?? "");
    // The leader closes the connection (an operator did): its end is the client's end, not a failover.
    else if (key === CMD.close) this.closing = true;
    this.toClient([whole(body)]);
  }

  /**
   * The leader let the client in: its answer goes on with this node's advertised host and port
   * (clients that check where they landed, as rabbitmq-stream-js-client's address resolver does,
   * must see the node they chose from Metadata), the leader's other properties kept.
   */
  private answerOpen(corr: number, body: Buffer): void {
    const own = this.host.advertised();
    if (own === null) return void this.toClient([whole(body)]);
    const c = new FrameCursor(body.subarray(10));
    const properties = c.remaining > 0 ? c.map() : new Map<string, string>();
    properties.set("advertised_host", own.host);
    properties.set("advertised_port", String(own.port));
    this.toClient([new FrameWriter(CMD.open | RESPONSE, 1, 128).u32(corr).u16(RC.ok).map(properties).frame()]);
  }

  /** The leader accepted the subscription: its answer goes out, then chunks from this node's files. */
  private startLocal(p: PendingSubscribe, response: Buffer): void {
    const s = new ReplicaSubscription(p.id, p.stream, p.properties, this.vhost, this.host.dataDir, p.start, p.credit, this.host.commits, {
      send: (pieces) => this.toClient(pieces),
      whenWritable: (fn) => this.client.once("drain", fn),
      deliverVersion: this.deliverVersion,
    });
    this.local.set(p.id, s);
    this.toClient([response]);
    s.pump();
  }

  /** The stream was deleted (or is unavailable): its local subscriptions end with it, as the leader's did. */
  private streamGone(stream: string): void {
    for (const [id, s] of this.local) {
      if (s.stream !== stream) continue;
      s.stop();
      this.local.delete(id);
    }
  }
}
