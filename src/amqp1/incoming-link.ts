/**
 * A link the client sends on (the broker is the receiver): its target address (amqp1-addresses.ts),
 * the credit it grants, transfers assembled across frames, and each message published through
 * Broker.publish as AMQP 0-9-1's basic.publish is, with the same permission checks
 * (exchangeForPublish: write on the exchange, topic permissions).
 *
 * Settlement (RabbitMQ 4): an unsettled delivery is accepted once routed (once the store has
 * synced it for a durable queue, as a publisher confirm), released when no queue took it, and
 * rejected when a queue refused it (its length limit) or it could not be decoded or addressed.
 * Credit: LINK_CREDIT (by bytes for large messages), topped up when half is used; while a memory or disk alarm is on no credit
 * is granted (RabbitMQ 4 throttles AMQP 1.0 senders so; AMQP 0-9-1 publishers are blocked
 * instead), and the top-up follows once every alarm clears. A transfer without credit detaches the link
 * with amqp:link:transfer-limit-exceeded, a message over max_message_size with
 * amqp:link:message-size-exceeded — in both cases nothing of it is stored.
 *
 * Publisher flow control (publish-flow.ts, as AMQP 0-9-1 publishers get it): while a consumed
 * queue this link fed has fallen behind, the top-up waits until it catches up — RabbitMQ 4 stops
 * granting link credit while a target queue is in flow. The link, not the connection, is held:
 * the connection's other links (a receiver draining that very queue) go on.
 */
import { createMessage, holdForEntries, PUBLISH_REFUSED, PUBLISH_ROUTED, PUBLISH_STORED, PUBLISH_UNROUTED, PublishFlow, type ChannelCounters, type FlowHost, type Queue, type SyncWaiter } from "../broker/index.js";
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { str, sym } from "../amqp10/amqp10-value.js";
import { Amqp1Error, CONDITION, fromBrokerError } from "./amqp1-errors.js";
import { parseTarget, type TargetAddress } from "./amqp1-addresses.js";
import { answerAttachWhenFollowed } from "./followed-attach.js";
import type { LinkHost, SessionLink } from "./link-host.js";
import { fromAmqp1, type ConvertedMessage } from "./message-conversion.js";
import { OriginalForms } from "./original-form.js";
import { readPlainMessage } from "./plain-message.js";
import { readPiecedMessage } from "./pieced-message.js";
import type { TransferFacts } from "./performative-heads.js";
import { LentPayload } from "./lent-payloads.js";
import { boolField, compositeField, described, optionalUint, PERFORMATIVE, textField, uintField } from "./performatives.js";

/**
 * The credit a sender gets, topped up when half is used. rhea's sender-only connections keep
 * Nagle's algorithm on, so each top-up round trip may wait for a delayed ACK (~40 ms): with 256
 * a pre-settled rhea sender was held to ~5,000 msg/s, with 2,048 it sends ~33,000 (PERFORMANCE.md).
 */
export const LINK_CREDIT = 2048;
/**
 * Large messages get credit by bytes: about this many in flight (at least LINK_MIN_CREDIT, as
 * RabbitMQ 4 grants 128), sized from the link's last message at each grant, so a pre-settled
 * 64 KB sender has 16 MiB outstanding, not 128 MiB. Small ones keep LINK_CREDIT (rhea's Nagle).
 */
export const LINK_CREDIT_BYTES = 16 * 1024 * 1024;
export const LINK_MIN_CREDIT = 128;
const SND_SETTLED = 1;
/**
 * The ready bytes of a consumed queue that hold this link's top-up (PublishFlow's default is
 * 64 MiB). A pre-settled sender has no other pacing than credit, so with the default the queue
 * swung between 32 and 64 MiB behind its waiting receiver; held at this, large messages go
 * nearly straight through (docs/PERFORMANCE.md, "pre-settled 64 KB", i44-perf2).
 */
export const LINK_FLOW_HIGH_BYTES = 8 * 1024 * 1024;

const state = (code: number, fields: Amqp10Value[] = []): Amqp10Value => described(code, fields);
const RELEASED = state(PERFORMATIVE.released);
const rejected = (condition: string, description: string): Amqp10Value => state(PERFORMATIVE.rejected, [described(PERFORMATIVE.error, [sym(condition), str(description)])]);

export class IncomingLink implements SyncWaiter, SessionLink, FlowHost {
  private readonly target: TargetAddress;
  private credit = 0;
  private deliveryCount = 0;
  private readonly sndSettleMode: number;
  /** Between a delivery's first transfer and its last. */
  private receiving = false;
  /** The payloads of a delivery in several frames (null for one in a single frame). */
  private pieces: Buffer[] | null = null;
  private pieceBytes = 0;
  private deliveryId = 0;
  private deliverySettled = false;
  private readonly routed: Queue[] = [];
  /** Deliveries waiting for the store's sync before they are accepted, in publish order. */
  private readonly awaitingSync: Array<{ token: number; id: number }> = [];
  private syncToken = 0;
  /** Detached or its session ended (read by followed-attach.ts too). */
  released = false;
  private grantPending = false;
  /** Waiting for the alarms to clear before granting credit. */
  private alarmHeld = false;
  private readonly alarmBlock = {
    unblock: (): void => {
      this.alarmHeld = false;
      this.grant();
    },
  };
  private readonly originals = new OriginalForms();
  /** Holding the top-up while a queue this link fed catches up. */
  private readonly flow = new PublishFlow(this, LINK_FLOW_HIGH_BYTES);
  private flowHeld = false;
  /** The credit of the last grant (LINK_CREDIT, or less for large messages); topped up when half is used. */
  private creditLimit = LINK_CREDIT;
  /** The size of the link's last message, which sizes the next grant. */
  private lastSize = 0;
  published = 0;
  /** The lease on the payload of the delivery being received (lent-payloads.ts). */
  private readonly lent: LentPayload;

  constructor(
    private readonly session: LinkHost,
    readonly name: string,
    readonly handle: number,
    private readonly fields: readonly Amqp10Value[],
  ) {
    this.sndSettleMode = uintField(fields, 3, "snd-settle-mode", 2);
    this.deliveryCount = uintField(fields, 9, "initial-delivery-count", 0);
    this.lent = new LentPayload(session.conn.slabs);
    const t = compositeField(fields, 6, "target");
    // RabbitMQ 4 has no transactions over AMQP 1.0: it refuses the coordinator so (rabbit_amqp_session).
    if (t !== null && t.code === PERFORMATIVE.coordinator) throw new Amqp1Error(CONDITION.notImplemented, "Transactions not supported", "link");
    this.target = parseTarget(t === null ? null : textField(t.fields, 0, "address"));
  }

  attach(): void {
    const conn = this.session.conn;
    const t = this.target;
    let declared = false;
    if (t.kind === "exchange") {
      const v = conn.vhostRef!;
      if (t.declareQueue !== null && !v.queues.has(t.declareQueue)) {
        // RabbitMQ 3.x declares it with the terminus' durability (rhea's default: not durable).
        const terminus = compositeField(this.fields, 6, "target");
        const durable = terminus !== null && uintField(terminus.fields, 1, "durable", 0) > 0;
        conn.broker.declareQueue(conn.ctx!, v.name, { name: t.declareQueue, durable, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
        declared = true;
      }
      conn.permissions!.check(v.name, "write", "exchange", t.exchange);
      if (t.exchange !== "" && !v.exchanges.has(t.exchange)) throw new Amqp1Error(CONDITION.notFound, `no exchange '${t.exchange}' in vhost '${v.name}'`, "link");
      if (t.exchange === "" && t.key !== null && !v.queues.has(t.key)) throw new Amqp1Error(CONDITION.notFound, `no queue '${t.key}' in vhost '${v.name}'`, "link");
    }
    const f = this.fields;
    // A queue it declared: attached back (and credit granted) once the other nodes know it.
    answerAttachWhenFollowed(this.session, this, declared, () => {
      this.session.send(PERFORMATIVE.attach, [
        str(this.name),
        { type: "uint", value: this.handle },
        { type: "boolean", value: true },
        { type: "ubyte", value: this.sndSettleMode },
        { type: "ubyte", value: 0 },
        f[5] ?? { type: "null" },
        f[6] ?? { type: "null" },
        { type: "null" },
        { type: "null" },
        { type: "null" },
        { type: "ulong", value: BigInt(conn.settings.maxMessageSize) },
      ]);
      this.grant();
    });
  }

  /** FlowHost: only credit is held, never the connection's reading, so its consumers never stop. */
  readonly hasConsumers = false;

  pauseForFlow(): void {
    this.flowHeld = true;
  }

  resumeFromFlow(): void {
    this.flowHeld = false;
    if (this.credit < this.creditLimit / 2) this.grant();
  }

  /** Tops our credit up to the limit (LINK_CREDIT, by bytes for large messages), unless an alarm is on (then once it clears) or flow control holds it (then once the queue catches up). */
  grant(): void {
    this.grantPending = false;
    if (this.released || this.flowHeld) return;
    const alarms = this.session.conn.settings.alarms;
    if (alarms !== null && alarms.reason !== null) {
      if (!this.alarmHeld) {
        this.alarmHeld = true;
        alarms.hold(this.alarmBlock);
      }
      return;
    }
    const bySize = this.lastSize > 0 ? Math.floor(LINK_CREDIT_BYTES / this.lastSize) : LINK_CREDIT;
    this.creditLimit = bySize >= LINK_CREDIT ? LINK_CREDIT : Math.max(LINK_MIN_CREDIT, bySize);
    // Never take back credit the sender was told of (part 2 §2.6.7: it may be in use already).
    if (this.credit < this.creditLimit) this.credit = this.creditLimit;
    this.sendFlow(false);
  }

  private sendFlow(echo: boolean): void {
    this.session.send(PERFORMATIVE.flow, [
      ...this.session.sessionFlowFields(),
      { type: "uint", value: this.handle },
      { type: "uint", value: this.deliveryCount },
      { type: "uint", value: this.credit },
      { type: "null" },
      { type: "boolean", value: false },
      { type: "boolean", value: echo },
    ]);
  }

  onFlow(f: readonly Amqp10Value[]): void {
    // The sender's delivery-count is authoritative (part 2 §2.6.7); credit stays ours to give.
    const count = optionalUint(f, 5, "delivery-count");
    if (count !== null) {
      this.credit = Math.max(0, this.deliveryCount + this.credit - count);
      this.deliveryCount = count;
    }
    if (boolField(f, 9, "echo", false)) this.sendFlow(false);
  }

  /**
   * One transfer frame of a delivery: its payload is `frame` from t.payloadAt (a single-frame
   * delivery is not sliced here), then `more` when the frame came in reads that were not adjacent
   * (amqp1-frames.ts: Frame.more).
   */
  onTransfer(t: TransferFacts, frame: Buffer, more: readonly Buffer[] | null = null): void {
    if (!this.receiving) {
      if (this.credit <= 0) throw new Amqp1Error(CONDITION.transferLimitExceeded, "a transfer without link credit", "link");
      const id = t.deliveryId;
      if (id < 0) throw new Amqp1Error(CONDITION.invalidField, "the first transfer of a delivery needs a delivery-id", "session");
      this.deliveryId = id;
      this.deliverySettled = this.sndSettleMode === SND_SETTLED || t.settled;
      this.receiving = true;
      this.pieceBytes = 0;
      this.credit--;
      this.deliveryCount = (this.deliveryCount + 1) >>> 0;
      // Topped up after the read (LinkHost.grantLater): a peer gets only credit it was told of, so
      // transfers past it in one burst are detectable (transfer-limit-exceeded).
      if (this.credit < this.creditLimit / 2 && !this.grantPending) {
        this.grantPending = true;
        this.session.grantLater(this);
      }
    } else if (t.settled) {
      this.deliverySettled = true;
    }
    if (t.aborted) {
      this.receiving = false;
      this.pieces = null;
      this.lent.drop();
      return;
    }
    const at = t.payloadAt;
    this.pieceBytes += frame.length - at;
    if (more !== null) for (const m of more) this.pieceBytes += m.length;
    if (this.pieceBytes > this.session.conn.settings.maxMessageSize) {
      this.receiving = false;
      this.pieces = null;
      this.lent.drop();
      throw new Amqp1Error(CONDITION.messageSizeExceeded, `message size ${this.pieceBytes} exceeds max_message_size ${this.session.conn.settings.maxMessageSize}`, "link");
    }
    // Frames of a delivery in several are kept until its last; a delivery in one frame needs no array.
    // Each payload's slab is held from the moment it is cut (lent-payloads.ts).
    if (t.more || this.pieces !== null || more !== null) {
      const piece = frame.subarray(at);
      const pieces = (this.pieces ??= []);
      pieces.push(piece);
      this.lent.add(piece);
      if (more !== null) {
        for (const m of more) {
          pieces.push(m);
          this.lent.add(m);
        }
      }
      if (t.more) return;
    } else {
      this.lent.add(frame);
    }
    const pieces = this.pieces;
    this.receiving = false;
    this.pieces = null;
    this.lastSize = this.pieceBytes;
    try {
      this.publish(frame, at, pieces);
    } finally {
      // Not published (refused, or its target's permissions failed): its slabs go back.
      this.lent.drop();
    }
  }

  /** Publishes the message that is `buf` from byte `at` on, or, when it came in several transfers, `pieces` (their payloads, read where they lie: pieced-message.ts). */
  private publish(buf: Buffer, at: number, pieces: readonly Buffer[] | null): void {
    const id = this.deliveryId;
    let m: ConvertedMessage;
    try {
      // A plain message (header and data sections) is read by hand; any other goes through the full decoder.
      m = pieces !== null ? readPiecedMessage(pieces) : (readPlainMessage(buf, at) ?? fromAmqp1(at === 0 ? buf : buf.subarray(at)));
    } catch (err) {
      return this.refuse(id, CONDITION.decodeError, err instanceof Error ? err.message : String(err));
    }
    let exchange: string;
    let key: string;
    const t = this.target;
    if (t.kind === "exchange") {
      exchange = t.exchange;
      key = t.key ?? m.subject ?? "";
    } else if (t.kind === "subject-queue") {
      if (m.subject === null) return this.refuse(id, CONDITION.invalidField, "a message to /queue needs a subject naming the queue");
      exchange = "";
      key = m.subject;
    } else {
      let to: TargetAddress;
      try {
        to = parseTarget(m.to);
        if (m.to === null || to.kind !== "exchange") throw new Amqp1Error(CONDITION.invalidField, `the message's 'to' is not an address: ${m.to ?? "none"}`, "link");
      } catch (err) {
        const e = fromBrokerError(err, "link");
        return this.refuse(id, e.condition, e.description);
      }
      exchange = to.exchange;
      key = to.key ?? m.subject ?? "";
    }
    const conn = this.session.conn;
    const broker = conn.broker;
    const v = conn.vhostRef!;
    let x;
    try {
      x = broker.exchangeForPublish(conn.ctx!, v, exchange, key);
    } catch (err) {
      const e = fromBrokerError(err, "link");
      // A fixed target refused by permissions ends the link, as RabbitMQ 4; a per-message 'to' refuses that message.
      if (t.kind !== "per-message") throw e;
      return this.refuse(id, e.condition, e.description);
    }
    const lease = this.lent.take();
    const message = createMessage(x.name, key, m.properties, null, m.body, Date.now(), lease, this.originals.of(m, x.name, key));
    broker.stats.messageSizes.observe(message.bodySize);
    const outcome = broker.publish(v, x, message, this.routed);
    if (lease !== null) {
      if (outcome === PUBLISH_ROUTED || outcome === PUBLISH_STORED) holdForEntries(lease, this.routed);
      else lease.pin();
    }
    this.published++;
    if (outcome === PUBLISH_ROUTED || outcome === PUBLISH_STORED) this.flow.check(this.routed, this.routed.length);
    if (outcome === PUBLISH_UNROUTED) {
      broker.stats.dropUnroutable++;
      v.stats.dropUnroutable++;
    }
    if (this.deliverySettled) return;
    if (outcome === PUBLISH_UNROUTED) this.session.settleIncoming(id, RELEASED);
    else if (outcome === PUBLISH_REFUSED) this.session.settleIncoming(id, rejected(CONDITION.resourceLimitExceeded, "a queue refused the message (its length limit)"));
    else if (outcome === PUBLISH_STORED) {
      this.awaitingSync.push({ token: ++this.syncToken, id });
      broker.whenStored(this, this.syncToken);
    } else this.session.acceptLater(id);
  }

  /** A delivery that cannot be published: rejected with the reason (settled ones are dropped). */
  private refuse(id: number, condition: string, description: string): void {
    this.session.conn.log.info("AMQP 1.0 message refused", { condition, description });
    if (!this.deliverySettled) this.session.settleIncoming(id, rejected(condition, description));
  }

  /** The store synced up to `token`: those deliveries are accepted. */
  synced(token: number, ok: boolean): void {
    if (this.released) return;
    const q = this.awaitingSync;
    while (q.length > 0 && q[0]!.token <= token) {
      const { id } = q.shift()!;
      if (ok) this.session.acceptLater(id);
      else this.session.settleIncoming(id, rejected(CONDITION.internalError, "the message store failed to write the message"));
    }
    this.session.flushAccepted();
  }

  release(): void {
    this.released = true;
    this.receiving = false;
    this.pieces = null;
    this.lent.drop();
    this.flow.stop();
    if (this.alarmHeld) this.session.conn.settings.alarms?.release(this.alarmBlock);
  }

  addStats(s: ChannelCounters): void {
    s.publish += this.published;
  }
}
