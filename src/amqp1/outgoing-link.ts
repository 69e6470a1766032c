/**
 * A link the client receives on (the broker is the sender): a consumer of the queue its source
 * names (amqp1-addresses.ts; read permission through Broker.queueForRead, as basic.consume),
 * driven by the client's link credit. Each delivery is one or more transfer frames; with
 * snd-settle-mode settled the consumer takes no acks (basic.consume no-ack), otherwise the
 * delivery waits in the session's unsettled map for the client's disposition. Drain: once the
 * queue has nothing more for the credit, the credit is spent by advancing delivery-count and the
 * flow is echoed with drain set (part 2 §2.6.7).
 *
 * A stream queue source reads from where the source's filter says (stream-filters.ts: RabbitMQ
 * 4's rabbitmq:stream-offset-spec, default next), each delivery annotated x-stream-offset; its
 * outcomes only return credit (the message stays in the stream). With property or SQL filter
 * expressions (property-filters.ts, sql-filter.ts) a message that does not match is not sent and takes no credit, but the
 * reader moves past it (settled at once, as RabbitMQ 4.1 skips it); without them no message is
 * decoded.
 *
 * A v1 exchange or topic source consumes from a queue of the link's own (server-named,
 * exclusive, auto-delete) bound with its key, deleted with the link.
 */
import { type ChannelCounters, type ConsumerInfo, deleteQueueAsync, type Queue, type QueueConsumer, type QueueEntry } from "../broker/index.js";
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { str, sym } from "../amqp10/amqp10-value.js";
import { withAnnotation } from "../amqp10/stored-original.js";
import { Amqp1Error, CONDITION } from "./amqp1-errors.js";
import { parseSource } from "./amqp1-addresses.js";
import { answerAttachWhenFollowed } from "./followed-attach.js";
import type { LinkHost, SessionLink } from "./link-host.js";
import { toAmqp1 } from "./message-conversion.js";
import { AMQP1_FORMAT } from "./original-form.js";
import { streamSourceFilters } from "./stream-filters.js";
import { decodeMessage, type Amqp10Message } from "../amqp10/message-sections.js";
import type { FieldTable } from "../broker/values/field-value.js";
import { boolField, compositeField, optionalUint, PERFORMATIVE, textField, uintField } from "./performatives.js";

const SND_SETTLED = 1;
/**
 * Messages a filtered stream reader may skip in one turn of the event loop: a filter that matches
 * little over a long backlog would otherwise read it all in one dispatch, holding up every other
 * client; past this the reader pauses and resumes on the next turn.
 */
const SKIPS_PER_TURN = 256;

export class OutgoingLink implements QueueConsumer<Queue>, SessionLink {
  readonly tag: string;
  readonly noAck: boolean;
  readonly exclusive = false;
  readonly priority = 0;
  /** Its transfers hold a lent body until written (amqp1-output.ts); an accepted outcome or a pre-settled delivery releases the entry's hold. */
  readonly countsBodyHolds = true;
  queue: Queue | null = null;
  /** Deliveries of this link in the session's unsettled map. */
  unsettledCount = 0;
  /** Detached or its session ended (read by followed-attach.ts). */
  released = false;
  /** Its attach waits for the other nodes to know its queue (followed-attach.ts). */
  private attaching = false;
  private credit = 0;
  private deliveryCount = 0;
  private drain = false;
  private readonly sndSettleMode: number;
  /** The queue of the link's own (a v1 exchange source), deleted with it. */
  private ownQueue: string | null = null;
  private readonly counters = { deliver: 0, deliverNoAck: 0, redeliver: 0 };
  /** A stream consumer's start and filter (stream-filters.ts); empty for other queues. */
  args: FieldTable = {};
  /** A pre-settled link on a stream: each delivery returns its credit to the stream at once. */
  private settleOnDelivery = false;
  /** A stream reader's property or SQL filter expressions (stream-filters.ts); null: none (no per-message work). */
  private matches: ((m: Amqp10Message) => boolean) | null = null;
  /** Messages skipped by the filters in this turn (0 without filters). */
  private skipped = 0;

  constructor(
    private readonly session: LinkHost,
    readonly name: string,
    readonly handle: number,
    private readonly fields: readonly Amqp10Value[],
  ) {
    this.sndSettleMode = uintField(fields, 3, "snd-settle-mode", 2);
    this.noAck = this.sndSettleMode === SND_SETTLED;
    this.tag = `amq.ctag-${session.channel}-${handle}`;
  }

  get owner(): object {
    return this.session.conn;
  }

  attach(): void {
    const conn = this.session.conn;
    const broker = conn.broker;
    const ctx = conn.ctx!;
    const v = conn.vhostRef!;
    const s = compositeField(this.fields, 5, "source");
    const address = parseSource(s === null ? null : textField(s.fields, 0, "address"));
    let name: string;
    // A queue declared or bound here: attached back once the other nodes know it (followed-attach.ts).
    let changed = true;
    if (address.kind === "queue") {
      name = address.queue;
      // RabbitMQ 3.x declares it with the terminus' durability (rhea's default: not durable).
      const durable = s !== null && uintField(s.fields, 1, "durable", 0) > 0;
      changed = address.declare && !v.queues.has(name);
      if (changed) broker.declareQueue(ctx, v.name, { name, durable, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
    } else {
      if (!v.exchanges.has(address.exchange)) throw new Amqp1Error(CONDITION.notFound, `no exchange '${address.exchange}' in vhost '${v.name}'`, "link");
      name = broker.declareQueue(ctx, v.name, { name: "", durable: false, autoDelete: true, exclusiveOwner: conn, arguments: {} }, false).queue.name;
      this.ownQueue = name;
      broker.bindQueue(ctx, v.name, name, address.exchange, address.key, {});
    }
    const queue = broker.queueForRead(ctx, v.name, name);
    let source: Amqp10Value = this.fields[5] ?? { type: "null" };
    if (queue.type === "stream") {
      // The stream queue reads where to start and what to filter from `args`, as from basic.consume's.
      const filters = streamSourceFilters(s?.fields[7]);
      this.args = filters.args;
      this.matches = filters.matches;
      // RabbitMQ 4 echoes the filters it took, not the ones asked for.
      if (s !== null) source = echoedSource(this.fields[5]!, filters.effective);
      this.settleOnDelivery = this.noAck;
      // Offsets and filters checked as basic.consume's (precondition-failed → amqp:precondition-failed), before we answer the attach.
      queue.admitConsumer({ noAck: false, prefetch: 1, channelPrefetch: 0, arguments: this.args });
    }
    queue.checkConsumable(false);
    this.attaching = true;
    answerAttachWhenFollowed(this.session, this, changed, () => {
      this.attaching = false;
      this.session.send(PERFORMATIVE.attach, [
        str(this.name),
        { type: "uint", value: this.handle },
        { type: "boolean", value: false },
        { type: "ubyte", value: this.sndSettleMode },
        { type: "ubyte", value: 0 },
        source,
        this.fields[6] ?? { type: "null" },
        { type: "null" },
        { type: "null" },
        { type: "uint", value: 0 },
      ]);
      this.queue = queue;
      queue.addConsumer(this);
    });
  }

  canTake(): boolean {
    return this.credit > 0 && this.session.canSend && this.skipped < SKIPS_PER_TURN;
  }

  deliver(queue: Queue, entry: QueueEntry): void {
    const s = this.session;
    const m = entry.message;
    // A message published over 1.0 goes out as it came (original-form.ts; from a stream, as it was
    // stored, with its offset annotated); others are converted.
    const o = m.original;
    const pieces = o !== null && o.format === AMQP1_FORMAT ? (queue.type === "stream" ? withStreamOffset(o.parts, m.properties.headers) : o.parts) : toAmqp1(m.properties, m.body, m);
    const pass = this.matches;
    if (pass !== null && !pass(decodeMessage(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces)))) {
      // Skipped: no transfer, no credit spent; the stream reader has moved past it (settle returns the stream's count).
      if (++this.skipped === SKIPS_PER_TURN) {
        setImmediate(() => {
          this.skipped = 0;
          this.queue?.dispatch();
        });
      }
      queue.settle(entry);
      return;
    }
    const id = s.nextDeliveryId;
    s.nextDeliveryId = (id + 1) >>> 0;
    s.sent(s.conn.output.transfer(s.channel, this.handle, id, this.noAck, pieces, m.lease));
    this.credit--;
    this.deliveryCount = (this.deliveryCount + 1) >>> 0;
    if (entry.redelivered) this.counters.redeliver++;
    if (this.noAck) {
      // The queue forgets the entry now; the transfer's own hold keeps the body until written.
      m.lease?.release();
      this.counters.deliverNoAck++;
      if (this.settleOnDelivery) queue.settle(entry);
      return;
    }
    this.counters.deliver++;
    s.unsettled.set(id, { link: this, queue, entry });
    this.unsettledCount++;
  }

  cancelledByQueue(_queue: Queue): void {
    this.queue = null;
    this.session.detachLink(this, new Amqp1Error(CONDITION.resourceDeleted, `queue '${_queue.name}' was deleted`, "link"));
  }

  onFlow(f: readonly Amqp10Value[]): void {
    const rcvCount = optionalUint(f, 5, "delivery-count") ?? 0;
    const linkCredit = optionalUint(f, 6, "link-credit") ?? 0;
    // credit = the receiver's delivery-count + its link-credit − ours (part 2 §2.6.7), modulo 2^32.
    this.credit = (rcvCount + linkCredit - this.deliveryCount) | 0;
    if (this.credit < 0) this.credit = 0;
    this.drain = boolField(f, 8, "drain", false);
    // Not attached back yet (followed-attach.ts): the credit is kept for the consumer it becomes.
    if (this.attaching) return;
    this.queue?.dispatch();
    if (this.drain && this.credit > 0) {
      this.deliveryCount = (this.deliveryCount + this.credit) >>> 0;
      this.credit = 0;
      this.sendFlow(true);
    } else if (boolField(f, 9, "echo", false)) {
      this.sendFlow(this.drain);
    }
  }

  private sendFlow(drain: boolean): void {
    this.session.send(PERFORMATIVE.flow, [
      ...this.session.sessionFlowFields(),
      { type: "uint", value: this.handle },
      { type: "uint", value: this.deliveryCount },
      { type: "uint", value: this.credit },
      { type: "uint", value: this.queue?.messageCount ?? 0 },
      { type: "boolean", value: drain },
    ]);
  }

  /** The socket drained or a window opened. */
  resume(): void {
    if (this.credit > 0) this.queue?.dispatch();
  }

  /** Detached or its session ended: the consumer goes, unsettled deliveries go back (RabbitMQ 4 requeues them). */
  release(): void {
    this.released = true;
    const q = this.queue;
    this.queue = null;
    const s = this.session;
    if (q !== null) q.removeConsumer(this);
    if (this.unsettledCount > 0) {
      const back = new Map<Queue, QueueEntry[]>();
      for (const [id, u] of s.unsettled) {
        if (u.link !== this) continue;
        s.unsettled.delete(id);
        let list = back.get(u.queue);
        if (!list) back.set(u.queue, (list = []));
        list.push(u.entry);
      }
      this.unsettledCount = 0;
      for (const [queue, entries] of back) queue.requeue(entries);
    }
    if (this.ownQueue !== null) {
      const conn = s.conn;
      const queue = this.ownQueue;
      // Local: deleted now; led by another worker: when its leader answers.
      deleteQueueAsync(conn.broker, conn.ctx!, conn.vhost, queue, { ifUnused: false, ifEmpty: false }).catch((err: unknown) =>
        conn.log.debug("the link's own queue was not deleted", { queue, err: err instanceof Error ? err.message : String(err) }),
      );
      this.ownQueue = null;
    }
  }

  addStats(c: ChannelCounters): void {
    c.deliver += this.counters.deliver;
    c.deliverNoAck += this.counters.deliverNoAck;
    c.redeliver += this.counters.redeliver;
  }

  consumerInfo(): ConsumerInfo {
    const q = this.queue;
    return { tag: this.tag, queue: q?.name ?? "", vhost: q?.vhost ?? this.session.conn.vhost, ackRequired: !this.noAck, exclusive: false, prefetchCount: this.credit, priority: 0, arguments: this.args, activity: q === null ? "up" : q.consumerActivity(this) };
  }
}

/** A stream delivery's parts with RabbitMQ 4's x-stream-offset annotation (a long), from the offset header the stream queue set. */
function withStreamOffset(parts: readonly Buffer[], headers: FieldTable | undefined): readonly Buffer[] {
  const offset = headers?.["x-stream-offset"];
  return typeof offset === "bigint" ? withAnnotation(parts, sym("x-stream-offset"), { type: "long", value: offset }) : parts;
}

/** The source terminus (a described list) with its filter field (index 7) replaced. */
function echoedSource(source: Amqp10Value, filter: Amqp10Value): Amqp10Value {
  if (source.type !== "described" || source.value.type !== "list") return source;
  const fields = [...source.value.value];
  while (fields.length < 7) fields.push({ type: "null" });
  fields[7] = filter;
  return { type: "described", descriptor: source.descriptor, value: { type: "list", value: fields } };
}
