/**
 * The connecting node's end of an inter-node link: the domain's QueueLeaderPort over one socket
 * (TCP, or a Unix socket between workers), for every queue the node at the other end leads
 * (docs/CLUSTERING.md, "The link protocol"). It forwards publishes (one frame per message, with
 * every queue id of that node it was routed to: one body per node), keeps the confirms waiting for
 * STORED (stored-waits.ts), registers consumers and hands their deliveries to them, settles by
 * entry id, runs the round trips (link-rpc.ts) and native stream reads and publishers (stream-link-ends.ts).
 *
 * A lost link is final for this object: `up` turns false, waiting confirms become nacks, its
 * consumers are cancelled (consumer_cancel_notify) and pending round trips fail; a new link is a
 * new LeaderLink, given to Broker.leadQueueElsewhere again.
 */
import type { Socket } from "node:net";
import type { Message, StreamQuery, StreamChunkSink, StreamPublisherHandle, StreamReadHandle, StreamReadTerms, QueueLeaderPort, RemoteConsumeTerms, RemoteConsumerSink, RemoteGot, RemoteQueueInfo, SettleOp, SyncWaiter } from "../broker/index.js";
import { SETTLE_REQUEUE, type QueueSpec } from "../broker/index.js";
import { BrokerError } from "../errors/broker-error.js";
import { type FrameSplitter, readFrames } from "./frame-splitter.js";
import * as F from "./link-frames.js";
import { infoManyFrame, replyFailure, replyGot, replyId, replyInfo, replyInfoMany, replyNumber, rpcFrame } from "./link-rpc.js";
import { LinkWriter } from "./link-writer.js";
import { StoredWaits } from "./stored-waits.js";
import { KeptForwards } from "./kept-forwards.js";
import { FEATURE_DELIVER_OWN, FEATURE_INFO_MANY, FEATURE_PUBLISH_RUN } from "./link-handshake.js";
import { StreamLinkEnds } from "./stream-link-ends.js";
import { PublishRuns } from "./publish-runs.js";
import { readOwn } from "./own-runs.js";
import type { SlabPool } from "../listeners/slab-pool.js";
import { replyValues, streamQueryFrame } from "./stream-query-frames.js";
import { nodeQueryFrame, replyJsonValue } from "./node-query-frames.js";

/** What the leader said in READY. */
export interface LinkTerms {
  readonly node: string;
  readonly creditMessages: number;
  readonly creditBytes: number;
  /** The features both ends use (link-handshake.ts); absent: none. */
  readonly features?: number;
}

type Queue = QueueSpec & { readonly vhost: string };

interface PendingRpc {
  resolve(f: Buffer): void;
  reject(err: Error): void;
}

export class LeaderLink implements QueueLeaderPort {
  readonly node: string;
  readonly creditMessages: number;
  readonly creditBytes: number;
  private alive = true;
  private readonly writer: LinkWriter;
  private readonly publishes: PublishRuns;
  private readonly properties = new F.PropertiesCache();
  private readonly waits = new StoredWaits();
  /** What was forwarded and not yet STORED, when the leader may deliver it back by position (DELIVER_OWN). */
  private readonly kept: KeptForwards | null;
  /** The leader answers many queues' counts in one reply (FEATURE_INFO_MANY). */
  private readonly infoInOne: boolean;
  private readonly streams: StreamLinkEnds; // native stream reads and publishers, as far as the leader serves them
  /** Deliveries that came as DELIVER_OWN (a message of this node, not carried back). */
  deliveredOwn = 0;
  private readonly queueIds = new Map<string, number>();
  /** queueIds by the queue object asking (a queue declared anew is a new object and is looked up by name once). */
  private readonly idsByQueue = new WeakMap<Queue, number>();
  private readonly sinks = new Map<number, RemoteConsumerSink>();
  private readonly rpcs = new Map<number, PendingRpc>();
  private readonly lostListeners: Array<() => void> = [];
  private nextConsumer = 0;
  private nextRpc = 0;
  /** The message being forwarded (routed to several queues of this node: one frame, all their ids). */
  private pendingMessage: Message | null = null;
  private readonly pendingIds: number[] = [];
  /** Settlements gathered this turn (emitSettles). */
  private readonly settleIds: number[] = [];
  private settleConsumer = 0;
  private settleOp: SettleOp = SETTLE_REQUEUE;

  /** `slabs`: the pool this link's reads return slabs to (link-reads.ts), or null: bodies are plain slices. */
  constructor(
    private readonly socket: Socket,
    terms: LinkTerms,
    splitter: FrameSplitter,
    private readonly slabs: SlabPool | null = null,
  ) {
    this.node = terms.node;
    this.creditMessages = terms.creditMessages;
    this.creditBytes = terms.creditBytes;
    this.kept = ((terms.features ?? 0) & FEATURE_DELIVER_OWN) !== 0 ? new KeptForwards() : null;
    this.infoInOne = ((terms.features ?? 0) & FEATURE_INFO_MANY) !== 0;
    this.publishes = new PublishRuns(((terms.features ?? 0) & FEATURE_PUBLISH_RUN) !== 0);
    this.writer = new LinkWriter(socket, () => {
      this.emitSettles();
      this.emitPending();
      this.publishes.seal();
    });
    this.streams = new StreamLinkEnds(terms.features ?? 0, this.writer, (q) => this.queueId(q), slabs, () => this.alive);
    splitter.maxFrame = 0xffff_ffff;
    readFrames(socket, splitter, (f) => this.onFrame(f));
    socket.on("close", () => this.lose());
    socket.on("error", () => this.lose());
  }

  get up(): boolean {
    return this.alive;
  }
  get inFlight(): number {
    return this.waits.inFlight;
  }
  get inFlightBytes(): number {
    return this.waits.inFlightBytes;
  }

  /** Ends the link (both sides then see it lost). */
  close(): void {
    this.socket.destroy();
    this.lose();
  }

  onLost(listener: () => void): void {
    if (this.alive) this.lostListeners.push(listener);
    else listener();
  }

  // ---------------------------------------------------------------- publish
  forward(queue: Queue, message: Message): number {
    const id = this.queueId(queue);
    if (this.pendingMessage === message) {
      this.pendingIds.push(id);
      return this.waits.sent;
    }
    this.emitPending();
    this.pendingMessage = message;
    this.pendingIds.push(id);
    this.writer.touch();
    this.kept?.keep(message);
    return this.waits.next(message.bodySize);
  }

  whenStored(waiter: SyncWaiter, token: number, first: number, last: number): void {
    this.waits.wait(waiter, token, first, last);
  }

  /** Writes the pending message (as PUBLISH, or in a PUBLISH_RUN: publish-runs.ts). */
  private emitPending(): void {
    const m = this.pendingMessage;
    if (m === null) return;
    const ids = this.pendingIds;
    this.pendingMessage = null;
    this.publishes.write(this.writer, m, ids);
    const entries = ids.length;
    ids.length = 0;
    const lease = m.lease;
    // The body is copied or held by the writer now: each queue's entry hold ends (QueueLeaderPort.forward).
    if (lease !== null) for (let i = 0; i < entries; i++) lease.release();
  }

  /**
   * The queue's id on this link; the first use tells the leader (QUEUE u32 id | vhost | name |
   * its definitions record as JSON), so a leader that has not yet heard of a queue declared on
   * this node declares it before the first message for it arrives (the same FIFO link).
   * Only a publish or a consume carries the record (`declares`): a round trip (INFO when the API
   * reads counts, GET, PURGE, DELETE) must never declare again a queue its leader has just
   * deleted while this node had not yet heard of it; the leader answers it NOT_FOUND instead.
   */
  private queueId(q: Queue, declares = true): number {
    // Known by the queue object first: a string key per message was a concatenation and a hash (issue 42's profile).
    let id = this.idsByQueue.get(q);
    if (id !== undefined) return id;
    const key = `${q.vhost}\u0000${q.name}`;
    id = this.queueIds.get(key);
    if (id === undefined) {
      id = this.queueIds.size + 1;
      this.queueIds.set(key, id);
      this.emitPending();
      // No record for an exclusive queue: it lives only with its connection, and one gone meanwhile must not come back as an ordinary queue.
      const { buf } = F.frameWithStrings(F.QUEUE, 4, declares && q.exclusiveOwner === null ? [q.vhost, q.name, F.queueRecord(q)] : [q.vhost, q.name]);
      buf.writeUInt32LE(id, F.FRAME_HEAD);
      this.writer.write(buf);
    }
    this.idsByQueue.set(q, id);
    return id;
  }

  /**
   * A direct reply-to reply for a requester of the node at the other end (DIRECT_REPLY: the
   * message). Fire and forget, as RabbitMQ casts it to the requester's channel: no position, no
   * confirm wait; that node drops it when its requester is gone.
   */
  forwardReply(message: Message): void {
    this.emitPending();
    this.writer.writeAll(F.messageFramePieces(F.DIRECT_REPLY, message));
  }

  // ---------------------------------------------------------------- consume
  consume(queue: Queue, terms: RemoteConsumeTerms, sink: RemoteConsumerSink): number {
    const qid = this.queueId(queue);
    const id = ++this.nextConsumer;
    this.sinks.set(id, sink);
    this.emitPending();
    this.writer.write(F.consumeFrame(id, qid, terms));
    return id;
  }

  cancel(consumerId: number): void {
    if (!this.sinks.delete(consumerId) || !this.alive) return;
    this.emitSettles();
    const f = F.frame(F.CANCEL, 4);
    f.writeUInt32LE(consumerId, F.FRAME_HEAD);
    this.writer.write(f);
  }

  /** Settlements of one consumer with one op, gathered in a turn: one SETTLE frame (a multiple ack of 100 is one frame). */
  settle(consumerId: number, entryId: number, op: SettleOp): void {
    if (!this.alive) return;
    if (this.settleIds.length > 0 && (this.settleConsumer !== consumerId || this.settleOp !== op)) this.emitSettles();
    this.settleConsumer = consumerId;
    this.settleOp = op;
    this.settleIds.push(entryId);
    this.writer.touch();
  }

  /** SETTLE: u32 consumer id | u8 op | u32 n | n × f64 entry id. */
  private emitSettles(): void {
    const ids = this.settleIds;
    if (ids.length === 0) return;
    this.emitPending();
    const w = this.writer;
    const at = w.reserve(F.FRAME_HEAD + 9 + 8 * ids.length);
    const b = w.slab;
    b.writeUInt32LE(1 + 9 + 8 * ids.length, at);
    b[at + 4] = F.SETTLE;
    const p = at + F.FRAME_HEAD;
    b.writeUInt32LE(this.settleConsumer, p);
    b[p + 4] = this.settleOp;
    b.writeUInt32LE(ids.length, p + 5);
    for (let i = 0; i < ids.length; i++) b.writeDoubleLE(ids[i]!, p + 9 + 8 * i);
    ids.length = 0;
  }

  // ---------------------------------------------------------------- round trips
  purge(queue: Queue): Promise<number> {
    return this.rpc(F.RPC_PURGE, queue).then((f) => replyNumber(f, 0));
  }
  delete(queue: Queue): Promise<number> {
    return this.rpc(F.RPC_DELETE, queue).then((f) => replyNumber(f, 0));
  }
  info(queue: Queue): Promise<RemoteQueueInfo> {
    return this.rpc(F.RPC_INFO, queue).then(replyInfo);
  }
  /** One INFO_MANY round trip; to a leader of an earlier version, one INFO each (sent in the same write). */
  infoMany(queues: readonly Queue[]): Promise<readonly (RemoteQueueInfo | null)[]> {
    if (!this.infoInOne) return Promise.all(queues.map((q) => this.info(q).catch(() => null)));
    if (!this.alive) return Promise.reject(this.lostError());
    const ids = queues.map((q) => this.queueId(q, false));
    return this.roundTrip(null, (id) => infoManyFrame(id, ids)).then((f) => replyInfoMany(f, ids.length));
  }
  get(queue: Queue, noAck: boolean): Promise<RemoteGot | null> {
    return this.rpc(noAck ? F.RPC_GET_NO_ACK : F.RPC_GET_ACK, queue).then((f) => replyGot(f, this.properties));
  }

  streamQuery(queue: Queue, query: StreamQuery): Promise<readonly number[]> {
    return this.roundTrip(queue, (id, qid) => streamQueryFrame(id, qid, query)).then(replyValues);
  }

  readStream(queue: Queue, terms: StreamReadTerms, sink: StreamChunkSink): StreamReadHandle | null {
    return this.alive ? this.streams.read(queue, terms, sink) : null;
  }
  streamPublisher(queue: Queue, reference: string): StreamPublisherHandle | null {
    return this.alive ? this.streams.publisher(queue, reference) : null;
  }

  /** A question to the node at the other end about itself (node-query-frames.ts): its answer, parsed; rejects with its error or when the link is lost. */
  nodeQuery(query: unknown): Promise<unknown> {
    if (!this.alive) return Promise.reject(this.lostError());
    const id = ++this.nextRpc;
    this.writer.write(nodeQueryFrame(id, query));
    return new Promise<Buffer>((resolve, reject) => this.rpcs.set(id, { resolve, reject })).then(replyJsonValue);
  }

  private rpc(kind: number, queue: Queue): Promise<Buffer> {
    return this.roundTrip(queue, (id, qid) => rpcFrame(id, kind, qid));
  }

  /** Sends the frame `build` makes for the next round trip's id and the queue's link id; resolves with the REPLY. */
  private roundTrip(queue: Queue | null, build: (id: number, queueId: number) => Buffer): Promise<Buffer> {
    if (!this.alive) return Promise.reject(this.lostError());
    const qid = queue === null ? 0 : this.queueId(queue, false);
    const id = ++this.nextRpc;
    this.emitSettles();
    this.emitPending();
    this.writer.write(build(id, qid));
    return new Promise((resolve, reject) => this.rpcs.set(id, { resolve, reject }));
  }

  // ---------------------------------------------------------------- incoming
  private onFrame(f: Buffer): void {
    const at = F.FRAME_HEAD;
    switch (f[4]) {
      case F.STORED: {
        const through = f.readDoubleLE(at);
        this.kept?.storedThrough(through);
        return this.waits.stored(through);
      }
      case F.REFUSED:
        return this.waits.refuse(f.readDoubleLE(at), f.readDoubleLE(at + 8));
      case F.DELIVER: {
        const id = f.readUInt32LE(at);
        const entryId = f.readDoubleLE(at + 4);
        const sink = this.sinks.get(id);
        // Cancelled here while the delivery was on its way: it goes back, as a cancelled consumer's would.
        if (sink === undefined) return this.settle(id, entryId, SETTLE_REQUEUE);
        return sink.delivered(entryId, f[at + 12] === 1, f.readUInt32LE(at + 13), F.readMessage(f, at + 17, this.properties, this.slabs));
      }
      case F.DELIVER_OWN:
      case F.DELIVER_OWN_RUN:
        return readOwn(f, this.deliverOwn);
      case F.CANCELLED: {
        const id = f.readUInt32LE(at);
        const sink = this.sinks.get(id);
        this.sinks.delete(id);
        return sink?.cancelledByLeader(F.readString(f, at + 4)[0]);
      }
      case F.REPLY: {
        const id = replyId(f);
        const rpc = this.rpcs.get(id);
        if (rpc === undefined) return;
        this.rpcs.delete(id);
        const failure = replyFailure(f);
        // A copy: the reply is read after this read returns (a basic.get's message keeps its body), when its slab may be back in the pool.
        return failure === null ? rpc.resolve(Buffer.from(f)) : rpc.reject(failure);
      }
      default:
        if (!this.streams.onFrame(f)) this.socket.destroy(new Error(`unexpected link frame type ${f[4]}`));
    }
  }

  /** A DELIVER_OWN (alone or in a run: own-runs.ts): a delivery of the message this node forwarded at `position` (kept-forwards.ts). */
  private readonly deliverOwn = (id: number, entryId: number, redelivered: boolean, deliveryCount: number, position: number): void => {
    const sink = this.sinks.get(id);
    if (sink === undefined) return this.settle(id, entryId, SETTLE_REQUEUE);
    const message = this.kept?.at(position);
    // The leader breaks the protocol (never offered, or a position already STORED): the link cannot be trusted further.
    if (message === undefined) return void this.socket.destroy(new Error("DELIVER_OWN names no message this node keeps"));
    // The frame's hold, as a DELIVER read from a slab starts with one: the sink hands it to the entry or pins it.
    message.lease?.hold();
    this.deliveredOwn++;
    sink.delivered(entryId, redelivered, deliveryCount, message);
  };

  private lostError(): BrokerError {
    return new BrokerError("notFound", `the link to node '${this.node}' is down`);
  }

  private lose(): void {
    if (!this.alive) return;
    this.alive = false;
    // Never written: its entries' holds end here.
    const lease = this.pendingMessage?.lease ?? null;
    if (lease !== null) for (let i = 0; i < this.pendingIds.length; i++) lease.release();
    this.pendingMessage = null;
    this.pendingIds.length = 0;
    this.settleIds.length = 0;
    this.kept?.dropAll();
    this.waits.lose();
    this.streams.lose();
    const sinks = [...this.sinks.values()];
    this.sinks.clear();
    for (const s of sinks) s.cancelledByLeader(`the link to node '${this.node}' was lost`);
    const err = this.lostError();
    for (const rpc of this.rpcs.values()) rpc.reject(err);
    this.rpcs.clear();
    for (const l of this.lostListeners.splice(0)) l();
  }
}
