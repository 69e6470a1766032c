/**
 * A queue led by another node: one more implementation of the queue-type interface
 * (queue-type.ts), whose methods put frames on the link to the leader through the domain's port
 * (queue-leader-port.ts). Callers — channels, MQTT, shovels, the API — hold a `Queue` and never
 * ask where it lives (docs/CLUSTERING.md, "The seam").
 *
 * What it keeps: the queue's declaration (DeclaredQueue), this node's consumers of it
 * (RemoteConsumerState, by id on the port), the counts the leader last reported (INFO: asked again
 * when read and older than INFO_MAX_AGE_MS; the management API waits for that answer,
 * remote-counts.ts), and what this node published to it (its stats). The
 * messages, their order, TTL, length limits and dead-lettering stay on the leader.
 *
 * Publisher flow (publish-flow.ts): `flowBacklog` is the leader's credit in use, scaled so that
 * STREAM_FLOW_HIGH means "all of it": a channel that outruns the leader is paused at its credit
 * and resumed at half, as for a stream's writer.
 */
import { BrokerError, describeResource, homeNodeDown } from "../../errors/broker-error.js";
import type { Message } from "../message.js";
import type { ForwardedPublishes } from "./forwarded-publishes.js";
import { DeclaredQueue } from "./declared-queue.js";
import { STREAM_FLOW_HIGH } from "./publish-flow.js";
import type { ConsumerActivity, QueueConsumer } from "./queue-consumer.js";
import type { QueueEntry } from "./queue-entry.js";
import { SETTLE_ACK, SETTLE_DISCARD, SETTLE_REQUEUE, type QueueLeaderPort, type RemoteGot, type RemoteQueueInfo, type SettleOp } from "./queue-leader-port.js";
import { NO_PREFETCH_WINDOW, RemoteConsumerState, RemoteEntry, type RemoteConsumerQueue } from "./remote-consumer.js";
import { resolveQueueSettings } from "./queue-settings.js";
import type { QueueSpec } from "./queue-spec.js";
import type { ConsumerTerms, Queue, QueueHost } from "./queue-type.js";
import type { FieldTable } from "../values/field-value.js";

/**
 * Counts older than this are asked for again when read: a synchronous read (overview totals,
 * metrics) sees them a round trip later, the management API's queue reads wait for them
 * (remote-counts.ts).
 */
export const INFO_MAX_AGE_MS = 200;

const NO_ENTRIES: readonly QueueEntry[] = Object.freeze([]);

export class RemoteQueue extends DeclaredQueue implements Queue, RemoteConsumerQueue {
  override readonly leadsElsewhere = true;
  readonly lendsBodies = false;
  /**
   * A lent body (values/body-lease.ts) routed here is counted: this queue's entry hold passes to
   * the link, which lets it go once the body is copied into, or written by, its socket (the
   * QueueLeaderPort's forward). Pinning it instead kept the publisher's read slab from its pool.
   */
  readonly countsBodyHolds = true;
  readonly pagedOutCount = 0;
  readonly pagedOutBytes = 0;
  readonly headTimestamp: number | null = null;
  /**
   * This node asked its leader to delete it and waits for the answer (remote-queue-operations.ts):
   * the stream protocol's Metadata here already says it does not exist, as the leader may tell its
   * own clients of the deletion before the answer is back (stream-lookup.ts).
   */
  deletingOnLeader = false;
  private readonly consumers = new Map<number, RemoteConsumerState>();
  private readonly byConsumer = new Map<QueueConsumer<Queue>, RemoteConsumerState>();
  private info: RemoteQueueInfo = { messages: 0, consumers: 0, unacked: 0 };
  private infoAt = 0;
  /** The ask for fresh counts on its way (a background refresh or a batch of the API's): later readers join it. */
  private infoAsk: Promise<void> | null = null;
  /** The window for the next addConsumer, from the admitConsumer call a channel makes right before it. */
  protected nextWindow = NO_PREFETCH_WINDOW;

  constructor(vhost: string, spec: QueueSpec, host: QueueHost, readonly leader: QueueLeaderPort, private readonly forwards: ForwardedPublishes) {
    super(vhost, spec, host);
    leader.onLost(() => this.leaderLost());
  }

  /** The leading node's name. */
  get node(): string {
    return this.leader.node;
  }

  override get leaderNode(): string {
    return this.leader.node;
  }

  applyPolicy(definition: Readonly<Record<string, unknown>>): void {
    // The leader applies the policy to the messages; this copy keeps the settings the API shows.
    this.settings = resolveQueueSettings(this.arguments, definition);
  }

  // --- info: the leader's last reported counts (refreshed when stale) ---
  get messageCount(): number {
    this.refreshInfo();
    return this.info.messages;
  }
  get consumerCount(): number {
    this.refreshInfo();
    return Math.max(this.info.consumers, this.consumers.size);
  }
  get readyBytes(): number {
    return 0;
  }
  get persistentCount(): number {
    return 0;
  }
  get persistentBytes(): number {
    return 0;
  }
  get flowBacklog(): number {
    const p = this.leader;
    return Math.max(Math.ceil((p.inFlight * STREAM_FLOW_HIGH) / p.creditMessages), Math.ceil((p.inFlightBytes * STREAM_FLOW_HIGH) / p.creditBytes));
  }
  listConsumers(): readonly QueueConsumer<Queue>[] {
    return [...this.byConsumer.keys()];
  }
  consumerActivity(_c: QueueConsumer<Queue>): ConsumerActivity {
    return "up";
  }
  readyEntries(): Iterable<QueueEntry> {
    return NO_ENTRIES;
  }

  /** Asks the leader for fresh counts and waits for them (passive declare, purge and delete answers). */
  async freshInfo(): Promise<RemoteQueueInfo> {
    this.tookInfo(await this.leader.info(this));
    return this.info;
  }

  /** When the leader's counts were taken (this node's clock; 0: never answered). */
  get countsAt(): number {
    return this.infoAt;
  }
  /** The counts are older than INFO_MAX_AGE_MS (or were never answered). */
  get countsStale(): boolean {
    return this.now() - this.infoAt >= INFO_MAX_AGE_MS;
  }
  get countsAsk(): Promise<void> | null {
    return this.infoAsk;
  }
  /** The leader's answer to a batched ask (remote-counts.ts). */
  tookInfo(info: RemoteQueueInfo): void {
    this.info = info;
    // The leader counts every delivery it awaits a settle for, this node's consumers' too: read by
    // the API and metrics beside messageCount, which asks again when stale.
    this.unacked = info.unacked;
    this.infoAt = this.now();
  }
  /** `ask` (which never rejects) will bring fresh counts: readers until it settles join it. */
  awaitingInfo(ask: Promise<void>): void {
    this.infoAsk = ask;
    void ask.then(() => {
      if (this.infoAsk === ask) this.infoAsk = null;
    });
  }

  private refreshInfo(): void {
    if (this.infoAsk !== null || !this.leader.up || !this.countsStale) return;
    this.awaitingInfo(this.freshInfo().then(
      () => undefined,
      () => undefined,
    ));
  }

  // --- publish ---
  enqueue(message: Message): boolean {
    // A lost leader never confirms: the publisher gets a nack, as RabbitMQ rejects what a queue that went down had pending.
    if (!this.leader.up) return false;
    this.stats.publish++;
    this.forwards.noteForward(this.leader, this.leader.forward(this, message));
    return true;
  }

  // --- consume ---
  admitConsumer(c: ConsumerTerms): void {
    if (c.noAck) {
      this.nextWindow = NO_PREFETCH_WINDOW;
      return;
    }
    const p = c.prefetch === 0 ? c.channelPrefetch : c.channelPrefetch === 0 ? c.prefetch : Math.min(c.prefetch, c.channelPrefetch);
    this.nextWindow = p === 0 ? NO_PREFETCH_WINDOW : p;
  }

  /** What this node can check: its own consumers (the leader checks them all, and cancels a refused one). */
  checkConsumable(exclusive: boolean): void {
    if (!this.leader.up) throw homeNodeDown(this.leader.node, this.name, this.vhost);
    if (this.consumers.size > 0 && (exclusive || [...this.byConsumer.keys()].some((x) => x.exclusive))) {
      throw new BrokerError("accessRefused", `${describeResource("queue", this.name, this.vhost)} in exclusive use`);
    }
  }

  addConsumer(c: QueueConsumer<Queue>): void {
    this.checkConsumable(c.exclusive);
    const state = new RemoteConsumerState(this, c);
    const window = this.nextWindow;
    this.nextWindow = NO_PREFETCH_WINDOW;
    state.id = this.leader.consume(this, { tag: c.tag, exclusive: c.exclusive, priority: c.priority, window, arguments: this.consumeArguments(c) }, state);
    this.consumers.set(state.id, state);
    this.byConsumer.set(c, state);
    this.lastActivity = this.now();
    this.host.consumerChanged?.(this, c, true);
  }

  /** The consume arguments the leader's queue needs: none for a classic or quorum queue (RemoteStreamQueue sends its offset). */
  protected consumeArguments(_c: QueueConsumer<Queue>): FieldTable | null {
    return null;
  }

  removeConsumer(c: QueueConsumer<Queue>): void {
    const state = this.byConsumer.get(c);
    if (state === undefined) return;
    this.forget(state);
    this.leader.cancel(state.id);
  }

  consumerEnded(state: RemoteConsumerState): void {
    this.forget(state);
  }

  private forget(state: RemoteConsumerState): void {
    this.consumers.delete(state.id);
    this.byConsumer.delete(state.consumer);
    this.lastActivity = this.now();
    this.host.consumerChanged?.(this, state.consumer, false);
  }

  dispatch(): void {
    for (const s of this.consumers.values()) s.drain();
  }

  // --- settle: by entry id on the leader; an entry of a lost link is forgotten (it comes again, redelivered) ---
  checkRejectable(): void {}
  settle(e: QueueEntry): void {
    this.stats.ack++;
    this.settleEntry(e, SETTLE_ACK);
  }
  /**
   * A requeued or discarded entry lives on (or dies) on the leader only: its hold on a lent body
   * ends here (an AMQP channel's nack passes the entry's hold back to the queue: settlement.ts), or
   * a read slab of this node — the link's, or the publisher's for a DELIVER_OWN — never came back.
   */
  requeue(entries: readonly QueueEntry[]): void {
    for (const e of entries) {
      this.settleEntry(e, SETTLE_REQUEUE);
      e.message.lease?.release();
    }
  }
  discard(e: QueueEntry): void {
    this.settleEntry(e, SETTLE_DISCARD);
    e.message.lease?.release();
  }
  settleOnLeader(consumerId: number, entryId: number, op: SettleOp): void {
    this.leader.settle(consumerId, entryId, op);
  }
  private settleEntry(e: QueueEntry, op: SettleOp): void {
    if (e instanceof RemoteEntry && this.leader.up) this.leader.settle(e.consumerId, e.seq, op);
  }

  // --- dequeue, purge, delete: round trips to the leader (remote-queue-operations.ts); the synchronous forms are never called ---
  get(_noAck: boolean): QueueEntry | null {
    throw this.needsRoundTrip("basic.get");
  }
  purge(): number {
    throw this.needsRoundTrip("queue.purge");
  }
  /** basic.get on the leader; the entry is held until settled unless no-ack. */
  async getFromLeader(noAck: boolean): Promise<RemoteGot | null> {
    const got = await this.leader.get(this, noAck);
    if (got === null) this.stats.getEmpty++;
    else if (noAck) this.stats.getNoAck++;
    else this.stats.get++;
    return got;
  }
  async purgeOnLeader(): Promise<number> {
    return this.leader.purge(this);
  }
  /** Deletes the queue on its leader; returns the count delete-ok reports. */
  async deleteOnLeader(): Promise<number> {
    return this.leader.delete(this);
  }
  /** Forgets the queue here (deleted on its leader, or by the vhost): this node's consumers are told. */
  markDeleted(): number {
    if (this.deleted) return 0;
    this.deleted = true;
    for (const s of [...this.consumers.values()]) {
      this.forget(s);
      if (this.leader.up) this.leader.cancel(s.id);
      s.consumer.cancelledByQueue(this);
    }
    return this.info.messages;
  }

  /** Its group moved (to this node or another): forgotten here as at a delete; its leader keeps the queue. */
  handOver(): void {
    this.markDeleted();
  }

  private needsRoundTrip(method: string): BrokerError {
    // Every caller takes the round trip (remote-queue-operations.ts: the …Async forms, and AMQP 0-9-1's held reading): reaching this is a bug.
    return new BrokerError("internalError", `${method} on ${describeResource("queue", this.name, this.vhost)} led by node '${this.leader.node}' needs a round trip to its leader`);
  }

  /** The link to the leader is lost: every consumer here is cancelled (consumer_cancel_notify); held deliveries are forgotten. */
  private leaderLost(): void {
    for (const s of [...this.consumers.values()]) s.cancelledByLeader("leader lost");
  }

  // --- recover: nothing here is stored on this node ---
  recovered(): void {}
  collectUnstored(): void {}
  dropMessages(): number {
    return 0;
  }
  /** A get's entry, to settle like a delivery (the channel keeps it as it keeps a local get's). */
  entryOf(got: RemoteGot): QueueEntry {
    return new RemoteEntry(got.consumerId, got.message, got.entryId, got.redelivered, got.deliveryCount);
  }
}
