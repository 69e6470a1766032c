/**
 * The leading node's end of an inter-node link, after the handshake: it serves the queues this
 * node leads to the connecting node (docs/CLUSTERING.md, "The link protocol"). PUBLISH frames are
 * enqueued with the same `Queue.enqueue` a local channel calls, and answered STORED/REFUSED
 * (stored-reports.ts); CONSUME registers a ServedConsumer; SETTLE, CANCEL and the round trips
 * (GET, PURGE, DELETE, INFO) call the queue; native stream reads (70–72) are served-stream-reads.ts,
 * native stream publishers' batches (76) served-stream-publishes.ts.
 * The connecting node checked its user's permissions
 * before anything reached the link (the link itself proved the cluster's secret), so this end acts
 * as the broker itself.
 *
 * When the socket closes every served consumer and stream read ends: what a consumer held goes
 * back to its queue, redelivered; held basic.get entries too.
 */
import type { Socket } from "node:net";
import { answerStreamQuery, definitionsFollowed, StreamQueue, applyMirroredChange, type Broker, type Message, type MirroredRecord, type Queue, type QueueEntry, type SyncWaiter } from "../broker/index.js";
import { PermissionChecker } from "../auth/permission-check.js";
import { BrokerError } from "../errors/broker-error.js";
import { type FrameSplitter, readFrames } from "./frame-splitter.js";
import * as F from "./link-frames.js";
import { readInfoManyIds, replyEmpty, replyError, replyGotHead, replyId, replyNumbers } from "./link-rpc.js";
import { LinkWriter } from "./link-writer.js";
import { ServedConsumer, type ServingLink } from "./served-consumer.js";
import { StoredReports } from "./stored-reports.js";
import { readPublishRun } from "./publish-runs.js";
import { OwnRuns } from "./own-runs.js";
import { readStreamQuery } from "./stream-query-frames.js";
import type { SlabPool } from "../listeners/slab-pool.js";
import { readNodeQuery, replyJson, type NodeQueryAnswerer } from "./node-query-frames.js";
import { ServedStreamReads } from "./served-stream-reads.js";
import { ServedStreamPublishes } from "./served-stream-publishes.js";

interface QueueRef {
  readonly vhost: string;
  readonly name: string;
  queue: Queue | null;
}

/** A link frame names a queue this node does not hold (deleted meanwhile, or led elsewhere now). */
const notOnLeader = (): BrokerError => new BrokerError("notFound", "queue not found on its leader");

/** basic.get holders get ids from here up; the connecting node numbers its consumers from 1. */
const FIRST_GET_HOLDER = 0x8000_0000;

export class LinkSession implements ServingLink {
  private readonly writer: LinkWriter;
  private readonly properties = new F.PropertiesCache();
  private readonly reports: StoredReports;
  private readonly queues = new Map<number, QueueRef>();
  private readonly consumers = new Map<number, ServedConsumer>();
  private readonly gets = new Map<number, { queue: Queue; entry: QueueEntry }>();
  private nextGet = FIRST_GET_HOLDER;
  private closed = false;
  /** The peer keeps what it forwards until STORED (link-handshake.ts FEATURE_DELIVER_OWN): its own messages go back as DELIVER_OWN. */
  deliversOwn = false;
  /** The message of the PUBLISH being handled (when deliversOwn), and its link position. */
  private arriving: Message | null = null;
  private arrivingAt = 0;
  /** How DELIVER_OWNs are written: in runs when the peer offered FEATURE_OWN_RUN (set with `deliversOwn`). */
  own = new OwnRuns(false);
  /** Messages that came in PUBLISH_RUN frames (publish-runs.ts). */
  publishedInRuns = 0;
  /** Native stream subscriptions of the peer's clients, read from the logs this node leads (frames 70–72). */
  private readonly streamReads: ServedStreamReads;
  private readonly streamPublishes: ServedStreamPublishes;

  constructor(
    private readonly broker: Broker,
    /** The link's socket (reading into slabs: link-reads.ts). */
    readonly socket: Socket,
    readonly peer: string,
    splitter: FrameSplitter,
    /** The pool this link's reads return slabs to (link-reads.ts), or null: bodies are plain slices. */
    private readonly slabs: SlabPool | null = null,
    private readonly answerQuery: NodeQueryAnswerer | null = null,
  ) {
    this.writer = new LinkWriter(socket, () => this.own.seal());
    this.reports = new StoredReports((f) => this.writer.write(f), (w: SyncWaiter, t: number) => broker.whenStored(w, t));
    this.streamReads = new ServedStreamReads(this.writer, (id) => this.queue(id), broker.streamGroups, () => definitionsFollowed(broker));
    this.streamPublishes = new ServedStreamPublishes(this.writer, broker, (id) => this.queue(id), slabs, () => this.closed);
    splitter.maxFrame = 0xffff_ffff;
    readFrames(socket, splitter, (f) => this.onFrame(f), () => this.reports.closeRun());
    socket.on("drain", () => {
      for (const c of this.consumers.values()) c.queue.dispatch();
      this.streamReads.drained();
    });
    socket.on("close", () => this.end());
    socket.on("error", () => this.end());
  }

  get backedUp(): boolean {
    return this.writer.backedUp;
  }

  writeDeliver(consumerId: number, entryId: number, e: QueueEntry): void {
    const w = this.writer;
    const m = e.message;
    if (m === this.arriving) return this.writeDeliverOwn(consumerId, entryId, e);
    const at = F.putMessageHead(w, F.DELIVER, 17, m);
    const b = w.slab;
    b.writeUInt32LE(consumerId, at);
    b.writeDoubleLE(entryId, at + 4);
    b[at + 12] = e.redelivered ? 1 : 0;
    b.writeUInt32LE(e.deliveryCount, at + 13);
    w.writeBody(m.body, m.lease);
  }

  /**
   * The message of the PUBLISH being handled, delivered to a consumer of the node that forwarded
   * it: DELIVER's fields and its position, no content (link-frames.ts DELIVER_OWN). The peer
   * still keeps it: this position's STORED is written after this frame, on the same FIFO link.
   */
  private writeDeliverOwn(consumerId: number, entryId: number, e: QueueEntry): void {
    this.own.write(this.writer, consumerId, entryId, e.redelivered, e.deliveryCount, this.arrivingAt);
  }

  cancelledByQueue(consumerId: number, reason: string): void {
    const { buf } = F.frameWithStrings(F.CANCELLED, 4, [reason]);
    buf.writeUInt32LE(consumerId, F.FRAME_HEAD);
    this.writer.write(buf);
  }

  private onFrame(f: Buffer): void {
    const at = F.FRAME_HEAD;
    switch (f[4]) {
      case F.PUBLISH:
        return this.publish(F.readMessage(f, F.FRAME_HEAD + 1 + 4 * f[F.FRAME_HEAD]!, this.properties, this.slabs), f);
      case F.PUBLISH_RUN:
        return readPublishRun(f, this.properties, this.slabs, (m) => {
          this.publishedInRuns++;
          this.publish(m, f);
        });
      case F.QUEUE: {
        const [vhost, p] = F.readString(f, at + 4);
        const [name, p2] = F.readString(f, p);
        this.queues.set(f.readUInt32LE(at), { vhost, name, queue: null });
        if (p2 < f.length) this.declareIfAbsent(vhost, name, F.readString(f, p2)[0]);
        return;
      }
      case F.CONSUME:
      case F.CONSUME_ARGS:
        return this.consume(f);
      case F.CANCEL: {
        const c = this.consumers.get(f.readUInt32LE(at));
        if (c === undefined) return;
        c.cancel();
        if (!c.holds) this.consumers.delete(c.id);
        return;
      }
      case F.SETTLE: {
        const holder = f.readUInt32LE(at);
        const op = f[at + 4]!;
        const n = f.readUInt32LE(at + 5);
        const c = this.consumers.get(holder);
        if (c === undefined) {
          for (let i = 0; i < n; i++) this.settleGot(holder, op);
          return;
        }
        for (let i = 0; i < n; i++) c.settle(f.readDoubleLE(at + 9 + 8 * i), op);
        return c.settled();
      }
      case F.RPC:
        return f[at + 4] === F.RPC_INFO_MANY ? this.infoMany(f) : this.rpc(f.readUInt32LE(at), f[at + 4]!, f.readUInt32LE(at + 5));
      case F.DIRECT_REPLY: {
        // To a requester of this node (its key names this node); dropped when it is gone, as RabbitMQ drops it.
        const reply = F.readMessage(f, at, this.properties, this.slabs);
        // Its requester's channel keeps it without counting (as AMQP's publishing.ts pins a direct reply).
        reply.lease?.pin();
        this.broker.directReply.deliver(reply.routingKey, reply);
        return;
      }
      case F.STREAM_QUERY:
        return this.streamQuery(f);
      case F.NODE_QUERY:
        return this.nodeQuery(f);
      default:
        if (!this.streamReads.onFrame(f) && !this.streamPublishes.onFrame(f)) this.socket.destroy(new Error(`unexpected link frame type ${f[4]}`));
    }
  }

  /**
   * A queue the peer declared and this node leads, heard of on the link before the definitions
   * relay told it (or with no relay): declared here from its record, as the relay would. A refusal
   * (no such vhost, a limit) leaves it absent: publishes to it are then dropped as unroutable and
   * consumes refused, as for a queue deleted meanwhile.
   */
  private declareIfAbsent(vhost: string, name: string, json: string): void {
    if (this.broker.vhosts.get(vhost)?.queues.has(name) !== false) return;
    try {
      applyMirroredChange(this.broker, { kind: "queues", op: "put", record: JSON.parse(json) as MirroredRecord });
    } catch {
      // Left absent, as said above.
    }
  }

  /** The queue behind a link id: looked up again once deleted (it may have been declared anew). */
  private queue(id: number): Queue | null {
    const ref = this.queues.get(id);
    if (ref === undefined) return null;
    if (ref.queue === null || ref.queue.isDeleted) ref.queue = this.broker.vhosts.get(ref.vhost)?.queues.get(ref.name) ?? null;
    return ref.queue;
  }

  /** A forwarded message (PUBLISH or one of a PUBLISH_RUN's), to the queues of the frame's u8 count | u32 ids. */
  private publish(message: Message, f: Buffer): void {
    const at = F.FRAME_HEAD;
    const n = f[at]!;
    const journal = this.broker.journal;
    const before = journal === null ? 0 : journal.appends;
    const forwards = this.broker.forwards;
    const forwardsBefore = forwards.count;
    let refused = false;
    let entries = 0;
    let counted = true;
    // Its position: a consumer of the peer it reaches while enqueued gets it as DELIVER_OWN (writeDeliver).
    if (this.deliversOwn) {
      this.arriving = message;
      this.arrivingAt = this.reports.received + 1;
    }
    try {
      for (let i = 0; i < n; i++) {
        const q = this.queue(f.readUInt32LE(at + 1 + 4 * i));
        // A queue gone since routing takes nothing (as an unroutable publish, confirmed); one led elsewhere is not this node's.
        if (q === null) continue;
        if (q.leadsElsewhere || !q.enqueue(message)) refused = true;
        else {
          entries++;
          if (!q.countsBodyHolds) counted = false;
        }
      }
    } finally {
      // Once handled, its STORED may follow at any time: the peer may no longer keep it.
      this.arriving = null;
    }
    // A leased body (values/body-lease.ts, as AMQP's publishing.ts holdForEntries): each entry holds it
    // when every queue counts its holds; otherwise, or when nothing took it, it is pinned.
    const lease = message.lease;
    if (lease !== null) {
      if (counted && entries > 0 && !refused) lease.handOver(entries);
      else lease.pin();
    }
    const appended = journal !== null && journal.appends !== before;
    // A new queue whose home claim is undecided holds the message (claim-hold.ts), noted as a forward:
    // its STORED waits for the claim's outcome (and the store, if it appended too), as a local
    // publisher's confirm does through Broker.publish — never before the message is stored.
    const held = forwards.count !== forwardsBefore;
    if (held) forwards.stored(appended);
    if (refused) this.reports.refused();
    else this.reports.accepted(appended || held);
  }

  private consume(f: Buffer): void {
    const at = F.FRAME_HEAD;
    const id = f.readUInt32LE(at);
    const q = this.queue(f.readUInt32LE(at + 4));
    const withArgs = f[4] === F.CONSUME_ARGS;
    const argsLen = withArgs ? f.readUInt32LE(at + 17) : 0;
    // A copy: the decoded table may keep slices of it (a byte array), and the frame's slab goes back to its pool.
    const args = withArgs ? F.decodeArguments(Buffer.from(f.subarray(at + 21, at + 21 + argsLen))) : null;
    const tag = F.readString(f, withArgs ? at + 21 + argsLen : at + 17)[0];
    try {
      if (q === null) throw notOnLeader();
      if (q.leadsElsewhere) throw new BrokerError("notFound", `queue '${q.name}' is not led by this node`);
      q.checkExclusiveAccess(null);
      q.checkConsumable(f[at + 12] === 1);
      const c = new ServedConsumer(this, id, q, tag, f[at + 12] === 1, f.readInt32LE(at + 13), f.readUInt32LE(at + 8), this, args);
      this.consumers.set(id, c);
      q.addConsumer(c);
    } catch (err) {
      this.consumers.delete(id);
      this.cancelledByQueue(id, err instanceof BrokerError ? err.replyText : String(err));
    }
  }

  /** A basic.get's entry settled (its holder id is its own, one entry each). */
  private settleGot(holder: number, op: number): void {
    const got = this.gets.get(holder);
    if (got === undefined) return;
    this.gets.delete(holder);
    if (op === 1) got.queue.settle(got.entry);
    else if (op === 2) got.queue.requeue([got.entry]);
    else got.queue.discard(got.entry);
  }

  private rpc(id: number, kind: number, queueId: number): void {
    try {
      const q = this.queue(queueId);
      if (q === null || q.leadsElsewhere) throw notOnLeader();
      if (kind === F.RPC_INFO) return this.writer.write(replyNumbers(id, [q.messageCount, q.consumerCount, q.unacked]));
      if (kind === F.RPC_PURGE) return this.writer.write(replyNumbers(id, [q.purge()]));
      if (kind === F.RPC_DELETE) return this.writer.write(replyNumbers(id, [this.broker.deleteQueue(this.context(), q.vhost, q.name, { ifUnused: false, ifEmpty: false })]));
      const noAck = kind === F.RPC_GET_NO_ACK;
      const entry = q.get(noAck);
      if (entry === null) return this.writer.write(replyEmpty(id));
      let holder = 0;
      if (!noAck) {
        holder = this.nextGet++;
        this.gets.set(holder, { queue: q, entry });
      }
      this.writer.write(replyGotHead(id, holder, entry.seq, entry.redelivered, entry.deliveryCount, q.messageCount, entry.message));
      this.writer.writeBody(entry.message.body);
    } catch (err) {
      this.writer.write(replyError(id, err));
    }
  }

  /** Many queues' counts in one reply (link-rpc.ts): three numbers each, as INFO's; -1s for a queue this node does not lead. */
  private infoMany(f: Buffer): void {
    const ids = readInfoManyIds(f);
    const values = new Array<number>(3 * ids.length).fill(-1);
    ids.forEach((qid, i) => {
      const q = this.queue(qid);
      if (q === null || q.leadsElsewhere) return;
      values[3 * i] = q.messageCount;
      values[3 * i + 1] = q.consumerCount;
      values[3 * i + 2] = q.unacked;
    });
    this.writer.write(replyNumbers(replyId(f), values));
  }

  /** A stream's query (stream-query-frames.ts), answered from the stream this node leads. */
  private streamQuery(f: Buffer): void {
    const { rpcId, queueId, query } = readStreamQuery(f);
    try {
      const q = this.queue(queueId);
      if (q === null || q.leadsElsewhere || !(q instanceof StreamQueue)) throw notOnLeader();
      if (query === null) throw new BrokerError("notImplemented", "unknown stream query on the inter-node link");
      this.writer.write(replyNumbers(rpcId, answerStreamQuery(q, query)));
    } catch (err) {
      this.writer.write(replyError(rpcId, err));
    }
  }

  /** A question to this node (node-query-frames.ts), answered when its answerer's promise settles. */
  private nodeQuery(f: Buffer): void {
    const id = f.readUInt32LE(F.FRAME_HEAD);
    const answer = this.answerQuery;
    Promise.resolve()
      .then(() => {
        if (answer === null) throw new BrokerError("notImplemented", "this node answers no node queries on its links");
        return answer(readNodeQuery(f).query, this.peer);
      })
      .then(
        (value) => void (this.closed || this.writer.write(replyJson(id, value))),
        (err: unknown) => void (this.closed || this.writer.write(replyError(id, err))),
      );
  }

  /** The peer node acting on this broker: every permission (it checked its client's before the link). */
  private context(): { permissions: PermissionChecker; owner: null; actor: { user: string; authMethod: "internal"; source: "internal"; peer: string } } {
    const user = { name: "rmq-internal", passwordHash: "", hashingAlgorithm: "rabbit_password_hashing_sha256" as const, tags: ["administrator"], limits: {}, isInternal: false };
    const grants = { hasVhostAccess: () => true, grantFor: () => `node '${this.peer}' over the inter-node link` };
    return { permissions: new PermissionChecker(this.broker.users, user, grants), owner: null, actor: { user: user.name, authMethod: "internal", source: "internal", peer: this.peer } };
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    this.streamReads.end();
    for (const c of this.consumers.values()) c.end();
    this.consumers.clear();
    for (const { queue, entry } of this.gets.values()) if (!queue.isDeleted) queue.requeue([entry]);
    this.gets.clear();
  }
}
