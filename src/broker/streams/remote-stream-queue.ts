/**
 * A stream led by another node (`coney --workers N`, docs/CLUSTERING.md "Streams across the
 * workers"): a RemoteQueue with a stream's rules. The leader's StreamQueue keeps the log and each
 * consumer's position; this node checks a consume as RabbitMQ 3.10 does (prefetch set, no
 * automatic acks, no global qos, a valid x-stream-offset) before anything crosses the link, sends
 * the stream's consume arguments with it (CONSUME_ARGS), and gives the leader the consumer's
 * prefetch as its window: an ack returns one delivery of credit, as on the leader. Every delivery
 * carries the `x-stream-offset` header the leader put in its properties.
 *
 * basic.get, nack/reject and purge are refused here with the leader's reply (stream-rules.ts), with
 * no round trip. RabbitMQ records an exclusive consume on a stream and enforces nothing.
 */
import type { QueueConsumer } from "../queue/queue-consumer.js";
import type { RemoteGot } from "../queue/queue-leader-port.js";
import type { ConsumerTerms, Queue } from "../queue/queue-type.js";
import { RemoteQueue } from "../queue/remote-queue.js";
import type { FieldTable } from "../values/field-value.js";
import { admitStreamConsumer, unsupportedOnStream } from "./stream-rules.js";
import { figuresOf, type StreamFigures, type StreamQuery } from "./stream-queries.js";
import { INFO_MAX_AGE_MS } from "../queue/remote-queue.js";
import type { StreamChunkSink, StreamReadHandle, StreamReadTerms } from "./stream-read-port.js";
import type { StreamPublisherHandle } from "./stream-publish-port.js";

/** The consume arguments a stream's leader reads (stream-arguments.ts). */
const STREAM_CONSUME_KEYS = ["x-stream-offset", "x-stream-filter", "x-stream-match-unfiltered"] as const;

export class RemoteStreamQueue extends RemoteQueue {
  private lastFigures: StreamFigures | null = null;
  private figuresAt = 0;
  private figuresAsk: Promise<void> | null = null;
  /** Told once when the stream goes from this node's view: deleted, or its leader's link lost (native publishers: stream-remote-publishers.ts). */
  private readonly goneListeners = new Set<() => void>();

  constructor(...args: ConstructorParameters<typeof RemoteQueue>) {
    super(...args);
    this.leader.onLost(() => this.gone());
  }

  /** Calls `fn` once when the stream is deleted or its leader lost; returns how to stop listening. */
  whenGone(fn: () => void): () => void {
    this.goneListeners.add(fn);
    return () => void this.goneListeners.delete(fn);
  }

  private gone(): void {
    const listeners = [...this.goneListeners];
    this.goneListeners.clear();
    for (const fn of listeners) fn();
  }

  /** A native-protocol query answered by the leader's log (stream-queries.ts). */
  query(q: StreamQuery): Promise<readonly number[]> {
    return this.leader.streamQuery(this, q);
  }

  /** A native subscription served from the leader's log; null when the leader serves none (stream-read-port.ts). */
  readNative(terms: StreamReadTerms, sink: StreamChunkSink): StreamReadHandle | null {
    return this.leader.up ? (this.leader.readStream?.(this, terms, sink) ?? null) : null;
  }

  /** A native publisher appending on the leader (stream-publish-port.ts); null when the leader takes none. */
  publisher(reference: string): StreamPublisherHandle | null {
    return this.leader.up ? (this.leader.streamPublisher?.(this, reference) ?? null) : null;
  }

  /**
   * The log's figures the leader last reported, for the management API; asked again when older
   * than INFO_MAX_AGE_MS (the API's reads wait for the answer: remote-counts.ts). Null before the
   * first answer.
   */
  get figures(): StreamFigures | null {
    this.refreshFigures();
    return this.lastFigures;
  }

  /** The ask for fresh figures on its way (started when they are older than the bound); null when fresh or the leader is down. Never rejects. */
  refreshFigures(): Promise<void> | null {
    if (this.figuresAsk !== null || !this.leader.up || this.now() - this.figuresAt < INFO_MAX_AGE_MS) return this.figuresAsk;
    const ask = this.query({ kind: "figures" }).then(
      (n) => {
        this.lastFigures = figuresOf(n);
        this.figuresAt = this.now();
      },
      () => undefined,
    );
    this.figuresAsk = ask;
    void ask.then(() => (this.figuresAsk = null));
    return ask;
  }

  override admitConsumer(c: ConsumerTerms): void {
    admitStreamConsumer(this.vhost, this.name, c, this.now());
    this.nextWindow = c.prefetch;
  }

  protected override consumeArguments(c: QueueConsumer<Queue>): FieldTable | null {
    const args = (c as { args?: Readonly<Record<string, unknown>> }).args;
    if (args === undefined) return null;
    let out: FieldTable | null = null;
    for (const k of STREAM_CONSUME_KEYS) {
      if (args[k] === undefined) continue;
      out ??= {};
      out[k] = args[k] as FieldTable[string];
    }
    return out;
  }

  /** Only the leader's link is checked: a stream has no exclusive consumers to enforce. */
  override checkConsumable(_exclusive: boolean): void {
    if (!this.leader.up) super.checkConsumable(false);
  }

  override checkRejectable(): void {
    throw unsupportedOnStream("basic.nack and basic.reject", this.vhost, this.name);
  }

  override getFromLeader(_noAck: boolean): Promise<RemoteGot | null> {
    return Promise.reject(unsupportedOnStream("basic.get", this.vhost, this.name));
  }

  override purgeOnLeader(): Promise<number> {
    return Promise.reject(unsupportedOnStream("queue.purge", this.vhost, this.name));
  }

  /** RabbitMQ 3.10's delete-ok for a stream counts no messages. */
  override markDeleted(): number {
    super.markDeleted();
    this.gone();
    return 0;
  }
}

