/**
 * A stream queue (`x-queue-type: stream`, docs/STREAMS.md) as AMQP 0-9-1 sees it, with RabbitMQ
 * 3.10's rules: every routed message is appended to the stream's log (durable, whatever its
 * delivery mode) and stays there until retention removes it; each consumer reads on from where
 * its `x-stream-offset` said, independently of the others, and each delivery carries its
 * `x-stream-offset` header. Consumers must acknowledge (no-ack is NOT_IMPLEMENTED) and set a
 * prefetch (PRECONDITION_FAILED otherwise); an ack only returns credit; basic.get, nack and
 * reject are NOT_IMPLEMENTED, and so is purge (RabbitMQ 3.10).
 *
 * It implements the queue-type interface (queue/queue-type.ts) on its own: it shares only what
 * every type has from its declaration (DeclaredQueue) with classic and quorum queues, and none of
 * their message path (no ready list, no message store queue log, no TTL or length-limit rules).
 *
 * Invariants: `unacked` counts deliveries not yet settled; a consumer's reader is at the offset
 * of the next message it has not been sent.
 */
import type { Message } from "../message.js";
import type { ClaimHold } from "../queue/claim-hold.js";
import { DeclaredQueue } from "../queue/declared-queue.js";
import type { ConsumerActivity, QueueConsumer } from "../queue/queue-consumer.js";
import type { QueueEntry } from "../queue/queue-entry.js";
import { resolveQueueSettings } from "../queue/queue-settings.js";
import type { QueueSpec } from "../queue/queue-spec.js";
import type { ConsumerTerms, Queue, QueueHost } from "../queue/queue-type.js";
import { MemoryStreamLog } from "./memory-stream-log.js";
import { filterBytesOf, parseStreamFilter, parseStreamOffset, segmentBytesOf, streamRetention, type StreamStart } from "./stream-arguments.js";
import { admitStreamConsumer, unsupportedOnStream } from "./stream-rules.js";
export type { StreamStart };
import type { EncodedMessageDecoder, EncodedSubBatch, StreamLog, StreamReader, StreamRetention } from "./stream-log.js";

/** A native-protocol party interested in a stream (src/stream): told when chunks commit and when the stream goes. */
export interface StreamWatcher {
  committed(): void;
  deleted(): void;
}

interface StreamConsumer {
  readonly consumer: QueueConsumer<Queue>;
  readonly reader: StreamReader;
}

export class StreamQueue extends DeclaredQueue implements Queue {
  readonly stream: StreamLog;
  private streamRetention: StreamRetention;
  private readonly readers: StreamConsumer[] = [];
  private streamDispatching = false;
  private deliverySeq = 1;
  private readonly watchers = new Set<StreamWatcher>();
  /** Native subscriptions (src/stream), counted among the queue's consumers. */
  private nativeConsumers = 0;
  /** Set only on a spread node while this new stream's home claim is undecided (claim-hold.ts): routed messages wait there. */
  claimHold: ClaimHold | null = null;

  constructor(vhost: string, spec: QueueSpec, host: QueueHost) {
    super(vhost, spec, host);
    this.stream = host.journal ? host.journal.forStream(vhost, spec.name, segmentBytesOf(spec.arguments, {}), filterBytesOf(spec.arguments), spec.group ?? 0) : new MemoryStreamLog(host.now);
    this.streamRetention = streamRetention(spec.arguments, {});
    // Consumers read committed messages only: each commit may give them more.
    this.stream.onCommit = () => {
      for (const w of this.watchers) w.committed();
      if (this.readers.length > 0) this.dispatch();
    };
  }

  /** Follows the stream's commits and deletion (a native publisher or subscription). */
  watch(w: StreamWatcher): void {
    this.watchers.add(w);
  }

  unwatch(w: StreamWatcher): void {
    this.watchers.delete(w);
  }

  /** A native subscription came (+1) or went (-1). */
  nativeConsumerChanged(delta: 1 | -1): void {
    this.nativeConsumers += delta;
    this.lastActivity = this.host.now();
  }

  /**
   * A native publisher's message, as its AMQP 1.0 bytes (kept as they came). Returns its offset,
   * or -1 when the stream is gone.
   */
  appendEncoded(bytes: Buffer, decode: EncodedMessageDecoder, filter: string | null = null): number {
    // Undecided claim (a spread node): refused (stream_not_available), never confirmed into a copy that may lose.
    if (this.isDeleted || this.claimHold !== null) return -1;
    const offset = this.stream.appendEncoded(bytes, decode, filter);
    this.stats.publish++;
    if (this.streamRetention.maxBytes > 0 && this.stream.bytes > this.streamRetention.maxBytes) this.stream.applyRetention(this.streamRetention);
    if (this.readers.length > 0) this.dispatch();
    return offset;
  }

  /** A native publisher's sub-entry batch (stream-log.ts). Returns its first offset, or -1 when it was not kept. */
  appendSubBatch(batch: EncodedSubBatch, decode: EncodedMessageDecoder): number {
    if (this.isDeleted || this.claimHold !== null) return -1;
    const offset = this.stream.appendSubBatch(batch, decode);
    if (offset < 0) return -1;
    this.stats.publish += batch.records;
    if (this.streamRetention.maxBytes > 0 && this.stream.bytes > this.streamRetention.maxBytes) this.stream.applyRetention(this.streamRetention);
    if (this.readers.length > 0) this.dispatch();
    return offset;
  }

  /**
   * Committed messages only (written and synced; in a cluster, replicated), as RabbitMQ counts a
   * stream from its writer's committed counters: a message is counted once it is confirmed,
   * never before (the client's suite reads the count over HTTP, then expects the confirm).
   * Read when asked; nothing is counted per message.
   */
  get messageCount(): number {
    return Math.max(0, this.stream.committedOffset - this.stream.firstOffset);
  }

  /** Appended and not yet committed (written, and in a cluster replicated): the writer's lag. */
  get flowBacklog(): number {
    return this.stream.nextOffset - this.stream.committedOffset;
  }

  /** A stream's messages are in its log, never paged out of memory by the message store or held there as persistent. */
  get pagedOutCount(): number {
    return 0;
  }

  get pagedOutBytes(): number {
    return 0;
  }

  get persistentCount(): number {
    return 0;
  }

  get persistentBytes(): number {
    return 0;
  }

  get headTimestamp(): number | null {
    return null;
  }

  /** No ready list: each consumer reads the log from its own offset. */
  readyEntries(): Iterable<QueueEntry> {
    return [];
  }

  /** Its chunks are not leased bodies of the message store (body-lease.ts). */
  get countsBodyHolds(): boolean {
    return false;
  }

  /** Streams take no x-single-active-consumer (queue-type-rules.ts): every consumer is up. */
  consumerActivity(_c: QueueConsumer<Queue>): ConsumerActivity {
    return "up";
  }

  /** A reader of a large backlog reuses its chunk buffer for consumers that copy (borrowsBodies). */
  get lendsBodies(): boolean {
    return true;
  }

  get readyBytes(): number {
    return this.stream.bytes;
  }

  get consumerCount(): number {
    return this.readers.length + this.nativeConsumers;
  }

  listConsumers(): readonly QueueConsumer<Queue>[] {
    return this.readers.map((r) => r.consumer);
  }

  /** Each AMQP 0-9-1 consumer with the offset it is sent next (the management API's view). */
  consumerOffsets(): { readonly consumer: QueueConsumer<Queue>; readonly offset: number }[] {
    return this.readers.map((r) => ({ consumer: r.consumer, offset: r.reader.position }));
  }

  applyPolicy(definition: Readonly<Record<string, unknown>>): void {
    this.settings = resolveQueueSettings(this.arguments, definition);
    if (this.deleted) return;
    this.streamRetention = streamRetention(this.arguments, definition);
    this.stream.applyRetention(this.streamRetention);
  }

  enqueue(message: Message): boolean {
    if (this.isDeleted) return false;
    if (this.claimHold !== null) return this.claimHold.hold(message);
    this.stream.append(message);
    this.stats.publish++;
    if (this.streamRetention.maxBytes > 0 && this.stream.bytes > this.streamRetention.maxBytes) this.stream.applyRetention(this.streamRetention);
    this.dispatch();
    return true;
  }

  admitConsumer(c: ConsumerTerms): void {
    admitStreamConsumer(this.vhost, this.name, c, this.host.now());
  }

  /** RabbitMQ 3.10 records an exclusive consume on a stream and enforces nothing (rabbit_stream_queue:consume). */
  checkConsumable(_exclusive: boolean): void {}

  addConsumer(c: QueueConsumer<Queue>): void {
    const args = (c as { args?: Record<string, unknown> }).args;
    const start = parseStreamOffset(args?.["x-stream-offset"] as never, this.host.now());
    this.readers.push({ consumer: c, reader: this.stream.reader(this.startOffset(start), c.borrowsBodies === true, parseStreamFilter(args as never)) });
    this.lastActivity = this.host.now();
    this.host.consumerChanged?.(this, c, true);
    this.dispatch();
  }

  removeConsumer(c: QueueConsumer<Queue>): void {
    const i = this.readers.findIndex((r) => r.consumer === c);
    if (i < 0) return;
    this.readers.splice(i, 1);
    this.lastActivity = this.host.now();
    this.host.consumerChanged?.(this, c, false);
  }

  get(_noAck: boolean): QueueEntry | null {
    throw unsupportedOnStream("basic.get", this.vhost, this.name);
  }

  checkRejectable(): void {
    throw unsupportedOnStream("basic.nack and basic.reject", this.vhost, this.name);
  }

  /** Sends each consumer what it has credit for, from its own position. */
  dispatch(): void {
    if (this.streamDispatching || this.isDeleted) return;
    this.streamDispatching = true;
    try {
      for (const r of this.readers) {
        while (r.consumer.canTake()) {
          const rec = r.reader.next();
          if (rec === null) break;
          this.unacked++;
          this.stats.deliver++;
          r.consumer.deliver(this, { message: withOffset(rec.message, rec.offset), seq: this.deliverySeq++, redelivered: false, deliveryCount: 1, returns: 0, expiresAt: 0 });
        }
      }
    } finally {
      this.streamDispatching = false;
    }
  }

  /** An ack returns the consumer's credit; the message stays in the stream. */
  settle(_e: QueueEntry): void {
    this.unacked--;
    this.stats.ack++;
    this.dispatch();
  }

  /** Unacknowledged deliveries of a closed channel: nothing goes back (each consumer has its own position). */
  requeue(entries: readonly QueueEntry[]): void {
    this.unacked -= entries.length;
    this.dispatch();
  }

  discard(_e: QueueEntry): void {
    this.unacked--;
  }

  /** RabbitMQ 3.10: a stream cannot be purged (its retention removes old segments). */
  purge(): number {
    throw unsupportedOnStream("queue.purge", this.vhost, this.name);
  }

  /** Returns 0: RabbitMQ 3.10's delete-ok for a stream counts no messages (its log is not "ready" messages). */
  markDeleted(): number {
    if (this.deleted) return 0;
    this.deleted = true;
    this.claimHold?.gone(true);
    this.claimHold = null;
    const readers = this.readers.splice(0);
    for (const r of readers) r.consumer.cancelledByQueue(this);
    this.stream.destroy();
    for (const w of [...this.watchers]) w.deleted();
    this.watchers.clear();
    return 0;
  }

  /** Its group moved to another node: readers and watchers are told as for a delete, but the log stays on disk for the next leader. */
  handOver(): void {
    if (this.deleted) return;
    this.deleted = true;
    const readers = this.readers.splice(0);
    for (const r of readers) r.consumer.cancelledByQueue(this);
    for (const w of [...this.watchers]) w.deleted();
    this.watchers.clear();
  }

  /** Nothing to recover here: the stream's log rebuilt its index when it was opened (stream-log.ts). */
  recovered(): void {}

  /** A failed write of the message store loses none of a stream's messages: they are in its own log. */
  collectUnstored(_isLost: (ref: number) => boolean, _into: Set<Message>): void {}

  dropMessages(_lost: ReadonlySet<Message>): number {
    return 0;
  }

  /** Where a consumer starting at `start` reads first. */
  startOffset(start: StreamStart): number {
    switch (start.kind) {
      case "first":
        return this.stream.firstOffset;
      case "last":
        return this.stream.lastChunkOffset;
      case "next":
        return this.stream.nextOffset;
      case "offset":
        return Math.min(Math.max(start.offset, this.stream.firstOffset), this.stream.nextOffset);
      case "timestamp":
        return this.stream.offsetAt(start.ms);
    }
  }
}

/**
 * The message with RabbitMQ's `x-stream-offset` header, a long (a new properties object: the stored
 * one is shared). Its original encoding stays (an exception to Message.original's invariant: the
 * header is the only difference), so an AMQP 1.0 consumer gets a 1.0 message as it was stored,
 * with the offset as the x-stream-offset annotation (src/amqp1), as RabbitMQ 4 sends it.
 */
function withOffset(m: Message, offset: number): Message {
  const properties = { ...m.properties, headers: { ...m.properties.headers, "x-stream-offset": BigInt(offset) } };
  return { ...m, properties, rawProperties: null, lease: null };
}
