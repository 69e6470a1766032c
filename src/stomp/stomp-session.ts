/**
 * A connected STOMP client's commands: SEND, SUBSCRIBE / UNSUBSCRIBE, ACK / NACK and the
 * transactions (BEGIN / COMMIT / ABORT: the frames of a transaction are held and replayed in
 * order at COMMIT, as rabbitmq_stomp does), mapped onto the broker's operations with the
 * connection's permissions. A refusal throws a StompFailure; the connection answers ERROR.
 *
 * Invariant: every held delivery is in exactly one subscription's `unacked`, and goes back to
 * its queue when the subscription or the session ends.
 */
import { type Broker, type ClientContext, deleteQueueAsync, PUBLISH_STORED, PUBLISH_UNROUTED, type ProtocolCounters, type PublishFlow, type Queue, type QueueEntry, type VHost } from "../broker/index.js";
import { parseDestination, destinationOf, type Destination } from "./stomp-destination.js";
import { badTransaction, domainRefusal, duplicateSubscription, missingHeader, noSubscription, stompError, unknownDestination, type StompError } from "./stomp-errors.js";
import type { StompFrame, StompVersion } from "./stomp-frame.js";
import { messageFromSend, messageHead } from "./stomp-message.js";
import type { FrameOutput } from "./frame-output.js";
import { declareNamedQueue, publishTarget, subscriptionQueue } from "./stomp-routing.js";
import { type AckMode, StompSubscription, type SubscriptionHost } from "./stomp-subscription.js";
import type { ReceiptOrder } from "./receipt-order.js";

/** A refusal the connection reports as an ERROR frame. */
export class StompFailure extends Error {
  constructor(readonly error: StompError) {
    super(error.detail);
  }
}

/** What the session needs of its connection. */
export interface SessionLink {
  readonly ctx: ClientContext;
  readonly output: FrameOutput;
  readonly flow: PublishFlow;
  readonly receipts: ReceiptOrder;
  /** A subscription the server ended: RabbitMQ's ERROR frame for it, the connection kept open. */
  subscriptionEnded(id: string): void;
}

function fail(e: StompError): never {
  throw new StompFailure(e);
}

/** Runs a domain operation; its refusal becomes RabbitMQ's ERROR. */
function domain<T>(op: () => T): T {
  try {
    return op();
  } catch (err) {
    if (err instanceof StompFailure) throw err;
    throw new StompFailure(domainRefusal(err));
  }
}

export class StompSession implements SubscriptionHost {
  readonly subscriptions = new Map<string, StompSubscription>();
  private readonly transactions = new Map<string, StompFrame[]>();
  /** /temp-queue/name → the queue made for it. */
  private readonly tempQueues = new Map<string, string>();
  /** /queue/q destinations declared by a SEND already (RabbitMQ declares once per session). */
  private readonly declared = new Set<string>();
  private readonly routed: Queue[] = [];
  private nextTag = 1;
  private publishing = false;

  constructor(
    private readonly broker: Broker,
    private readonly link: SessionLink,
    private readonly vhost: VHost,
    readonly version: StompVersion,
    readonly sessionId: string,
    private readonly counters: ProtocolCounters,
  ) {}

  get owner(): object {
    return this.link.ctx.owner!;
  }

  get writable(): boolean {
    return this.link.output.writable;
  }

  /** Handles one frame after CONNECT (DISCONNECT and heart-beats are the connection's). */
  handle(f: StompFrame): void {
    const tx = f.headers.get("transaction");
    if (tx !== undefined && f.command !== "BEGIN" && f.command !== "COMMIT" && f.command !== "ABORT") {
      const held = this.transactions.get(tx) ?? fail(badTransaction(tx));
      held.push(f);
      return;
    }
    this.run(f);
  }

  private run(f: StompFrame): void {
    switch (f.command) {
      case "SEND":
        return this.send(f);
      case "SUBSCRIBE":
        return this.subscribe(f);
      case "UNSUBSCRIBE":
        return this.unsubscribe(f);
      case "ACK":
      case "NACK":
        return this.settle(f, f.command === "ACK");
      case "BEGIN":
        return this.begin(f);
      case "COMMIT":
      case "ABORT":
        return this.endTransaction(f, f.command === "COMMIT");
      default:
        return fail(stompError("Bad command", `Could not interpret command "${f.command}"\n`));
    }
  }

  private destination(f: StompFrame): { text: string; d: Destination } {
    const text = f.headers.get("destination") ?? fail(missingHeader(f.command, "destination"));
    const d = parseDestination(text) ?? fail(unknownDestination(text));
    return { text, d };
  }

  // ------------------------------------------------------------ SEND

  private send(f: StompFrame): void {
    const { d } = this.destination(f);
    const ctx = this.link.ctx;
    const v = this.vhost;
    let exchange: string;
    let key: string;
    if (d.kind === "temp-queue") {
      exchange = "";
      key = this.tempQueue(d.name);
    } else {
      ({ exchange, key } = publishTarget(d));
      if (d.kind === "queue" && !this.declared.has(d.queue)) {
        domain(() => declareNamedQueue(this.broker, ctx, v.name, d.queue, f.headers));
        this.declared.add(d.queue);
      }
    }
    let replyTo = f.headers.get("reply-to");
    if (replyTo !== undefined && replyTo.startsWith("/temp-queue/")) replyTo = `/reply-queue/${this.tempQueue(replyTo.slice(12))}`;
    const x = domain(() => this.broker.exchangeForPublish(ctx, v, exchange, key));
    const message = messageFromSend(f.headers, f.body, x.name, key, replyTo, Date.now());
    const counters = this.counters;
    if (!this.publishing) {
      this.publishing = true;
      counters.publishers++;
    }
    this.broker.stats.messageSizes.observe(message.bodySize);
    const outcome = this.broker.publish(v, x, message, this.routed);
    counters.publish++;
    if (outcome !== PUBLISH_UNROUTED) {
      counters.routed++;
      this.link.flow.check(this.routed, this.routed.length);
    } else {
      counters.dropUnroutable++;
      this.broker.stats.dropUnroutable++;
      v.stats.dropUnroutable++;
    }
    const receipt = f.headers.get("receipt");
    if (receipt !== undefined) this.link.receipts.owe(receipt, outcome === PUBLISH_STORED);
  }

  /** The queue behind /temp-queue/name, made on first use: exclusive to the connection, consumed at once (its MESSAGEs name the temp queue as their subscription). */
  private tempQueue(name: string): string {
    const known = this.tempQueues.get(name);
    if (known !== undefined) return known;
    const ctx = this.link.ctx;
    const v = this.vhost.name;
    const queue = domain(() => this.broker.declareQueue(ctx, v, { name: "", durable: false, autoDelete: true, exclusiveOwner: ctx.owner, arguments: {} }, false).queue);
    this.tempQueues.set(name, queue.name);
    const id = `/temp-queue/${name}`;
    const sub = new StompSubscription(this, id, queue, "auto", 0, null, id);
    this.addSubscription(sub);
    return queue.name;
  }

  // ------------------------------------------------------------ SUBSCRIBE

  private subscribe(f: StompFrame): void {
    const { text, d } = this.destination(f);
    const id = f.headers.get("id") ?? text;
    if (this.subscriptions.has(id)) fail(duplicateSubscription(id));
    const ackHeader = f.headers.get("ack") ?? "auto";
    if (ackHeader !== "auto" && ackHeader !== "client" && ackHeader !== "client-individual") fail(stompError("Invalid ack header", `Invalid ack header "${ackHeader}"; expected auto, client or client-individual\n`));
    const ack: AckMode = ackHeader;
    const prefetchHeader = f.headers.get("prefetch-count");
    const prefetch = prefetchHeader === undefined ? 0 : Number(prefetchHeader);
    if (!Number.isInteger(prefetch) || prefetch < 0) fail(stompError("Invalid prefetch-count", `Invalid prefetch-count "${prefetchHeader}"\n`));
    if (d.kind === "temp-queue") fail(unknownDestination(text));
    const ctx = this.link.ctx;
    const v = this.vhost.name;
    const target = domain(() => subscriptionQueue(this.broker, ctx, v, d, text, id, f.headers));
    const queue = domain(() => this.broker.queueForRead(ctx, v, target.name));
    this.addSubscription(new StompSubscription(this, id, queue, ack, prefetch, target.own, `T_${id}`));
  }

  private addSubscription(sub: StompSubscription): void {
    if (this.subscriptions.size === 0) this.counters.consumers++;
    this.subscriptions.set(sub.id, sub);
    domain(() => sub.queue.addConsumer(sub));
  }

  private unsubscribe(f: StompFrame): void {
    const id = f.headers.get("id") ?? f.headers.get("destination") ?? fail(missingHeader("UNSUBSCRIBE", "id"));
    const sub = this.subscriptions.get(id) ?? fail(noSubscription(id));
    this.dropSubscription(sub);
    // A durable subscription ends for good when UNSUBSCRIBE says so (RabbitMQ: durable or persistent:true).
    const own = sub.own;
    if (own === null) return;
    const ends = !own.durable || f.headers.get("durable") === "true" || f.headers.get("persistent") === "true";
    if (!ends) return;
    const opts = { ifUnused: false, ifEmpty: false };
    const elsewhere = this.vhost.queues.get(own.name)?.leadsElsewhere === true;
    // A non-durable subscription's queue on this node went with its consumer (auto-delete).
    if (!elsewhere) {
      if (own.durable) domain(() => this.broker.deleteQueue(this.link.ctx, this.vhost.name, own.name, opts));
      return;
    }
    // Led by another worker: deleted there (a non-durable one may already be, by its auto-delete),
    // and the receipt waits for that round trip and then for every worker to have forgotten it, so
    // a publish after the receipt is not routed to it (if its leader is down, the queue stays).
    const mirror = this.broker.mirror;
    const forgotten = (): Promise<void> | undefined => mirror?.settled?.();
    this.link.receipts.waitFor(deleteQueueAsync(this.broker, this.link.ctx, this.vhost.name, own.name, opts).then(forgotten, forgotten));
  }

  private dropSubscription(sub: StompSubscription): void {
    this.subscriptions.delete(sub.id);
    sub.cancel();
    if (this.subscriptions.size === 0) this.counters.consumers--;
  }

  /** Its queue ended it (deleted, leader lost, or its declare lost in a spread cluster): the client is told, as by RabbitMQ. */
  subscriptionCancelled(s: StompSubscription): void {
    if (this.subscriptions.get(s.id) === s) {
      this.subscriptions.delete(s.id);
      if (this.subscriptions.size === 0) this.counters.consumers--;
      this.link.subscriptionEnded(s.id);
    }
  }

  // ------------------------------------------------------------ deliveries

  deliver(s: StompSubscription, _queue: Queue, entry: QueueEntry): void {
    const tag = this.nextTag++;
    const messageId = `T_${s.id}@@${this.sessionId}@@${tag}`;
    const m = entry.message;
    const ackHeader = !s.noAck && this.version === "1.2" ? messageId : null;
    const head = messageHead(m, s.id, destinationOf(m.exchange, m.routingKey), messageId, ackHeader, entry.redelivered, this.version);
    this.link.output.send(Buffer.from(head), m.body);
    const stats = this.broker.stats;
    const vstats = this.vhost.stats;
    const counters = this.counters;
    if (entry.redelivered) {
      stats.redeliver++;
      vstats.redeliver++;
      counters.redeliver++;
    }
    if (s.noAck) {
      stats.deliverNoAck++;
      vstats.deliverNoAck++;
      counters.deliverNoAck++;
      return;
    }
    stats.deliver++;
    vstats.deliver++;
    counters.deliver++;
    s.unacked.set(tag, entry);
  }

  /** The output drained: subscriptions may take messages again. */
  drained(): void {
    for (const s of this.subscriptions.values()) s.queue.dispatch();
  }

  // ------------------------------------------------------------ ACK / NACK

  private settle(f: StompFrame, ack: boolean): void {
    const header = this.version === "1.2" ? "id" : "message-id";
    const id = f.headers.get(header) ?? fail(missingHeader(f.command, header));
    // T_<subscription>@@<session>@@<tag>
    const last = id.lastIndexOf("@@");
    const prev = last > 0 ? id.lastIndexOf("@@", last - 1) : -1;
    const tag = Number(id.slice(last + 2));
    if (prev <= 2 || !id.startsWith("T_") || !Number.isInteger(tag)) fail(missingHeader(f.command, header));
    const sub = this.subscriptions.get(id.slice(2, prev));
    const done = sub !== undefined && (ack ? sub.ack(tag) : sub.nack(tag, f.headers.get("requeue") !== "false"));
    if (!done) fail(stompError("precondition_failed", `PRECONDITION_FAILED - unknown delivery tag ${tag}`));
    if (ack) {
      this.counters.ack++;
      this.broker.stats.ack++;
      this.vhost.stats.ack++;
    }
  }

  // ------------------------------------------------------------ transactions

  private begin(f: StompFrame): void {
    const tx = f.headers.get("transaction") ?? fail(missingHeader("BEGIN", "transaction"));
    if (this.transactions.has(tx)) fail(badTransaction(tx));
    this.transactions.set(tx, []);
  }

  private endTransaction(f: StompFrame, commit: boolean): void {
    const tx = f.headers.get("transaction") ?? fail(missingHeader(f.command, "transaction"));
    const held = this.transactions.get(tx) ?? fail(badTransaction(tx));
    this.transactions.delete(tx);
    if (commit) for (const h of held) this.run(h);
  }

  /** The connection closed: subscriptions end, held deliveries go back to their queues. */
  release(): void {
    for (const s of [...this.subscriptions.values()]) this.dropSubscription(s);
    if (this.publishing) this.counters.publishers--;
    this.publishing = false;
    this.transactions.clear();
  }
}
