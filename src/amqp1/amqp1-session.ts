/**
 * One AMQP 1.0 session (part 2 §2.5): its links by handle, the transfer windows both ways, and
 * the broker's unsettled deliveries by delivery-id, which the peer's dispositions settle.
 *
 * Windows: we announce settings.maxIncomingWindow frames and top it up when half is used; a peer
 * that sends past it ends the session with amqp:session:window-violation. While a memory or disk
 * alarm is on the window is not topped up (RabbitMQ 4 closes it then), so a peer that ignores it
 * is told so; once every alarm clears it opens again. Our transfers stop while the
 * peer's incoming window (next-incoming-id + incoming-window − our next-outgoing-id) is used up.
 *
 * Errors: an Amqp1Error of scope "link" detaches that link with it; "session" ends the session
 * with it (frames then wait for the peer's end); "connection" goes up to the connection.
 */
import type { ChannelInfo } from "../broker/index.js";
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import type { LinkHost, SessionConnection, SessionLink, Unsettled } from "./link-host.js";
import { Amqp1Error, CONDITION, fromBrokerError } from "./amqp1-errors.js";
import { errorValue } from "./amqp1-error-value.js";
import { FRAME_AMQP, type Frame } from "./amqp1-frames.js";
import { applyOutcome, type Outcome } from "./delivery-outcomes.js";
import { dispositionFacts, transferFacts, type DispositionFacts } from "./performative-heads.js";
import { IncomingLink } from "./incoming-link.js";
import { OutgoingLink } from "./outgoing-link.js";
import { managementLink, ManagementPairs, ManagementRequestLink, ManagementResponseLink } from "./management-links.js";
import { boolField, optionalUint, PERFORMATIVE, performativeFrame, textField, uintField, type Performative } from "./performatives.js";
import { disposition } from "./dispositions.js";

const OUTGOING_WINDOW = 0xffffffff;
const HANDLE_MAX = 0xffff;

export class Amqp1Session implements LinkHost {
  readonly links = new Map<number, IncomingLink | OutgoingLink | ManagementRequestLink | ManagementResponseLink>();
  /** Links to the `/management` node, paired by name (management-links.ts). */
  private readonly managementPairs = new ManagementPairs();
  readonly unsettled = new Map<number, Unsettled>();
  readonly createdAt = Date.now();
  /** The id of our next delivery (and the transfer-id of our next frame). */
  nextDeliveryId = 0;
  private nextOutgoingId = 0;
  private remoteIncomingWindow = 0;
  private nextIncomingId = 0;
  private readonly incomingWindow: number;
  private incomingLeft: number;
  /** Waiting for the alarms to clear before the incoming window is topped up. */
  private windowHeld = false;
  private readonly windowBlock = {
    unblock: (): void => {
      this.windowHeld = false;
      if (this.ending) return;
      this.incomingLeft = this.incomingWindow;
      this.sendSessionFlow();
    },
  };
  /** An error ended the session: frames are ignored until the peer's end. */
  private ending = false;
  /** Handles the broker detached first: the peer's answering detach is expected, not an error. */
  private readonly detaching = new Set<number>();
  /** Delivery ids accepted while reading one socket read, sent as ranges at its end. */
  private accepted: number[] = [];
  /** Links whose credit is topped up at the end of the read. */
  private readonly grants: Array<{ grant(): void }> = [];

  constructor(
    readonly conn: SessionConnection,
    readonly channel: number,
  ) {
    this.incomingWindow = conn.settings.maxIncomingWindow;
    this.incomingLeft = this.incomingWindow;
  }

  /** True while our transfers fit the peer's window and the socket takes writes. */
  get canSend(): boolean {
    return this.remoteIncomingWindow > 0 && this.conn.canWrite && !this.ending;
  }

  begin(f: readonly Amqp10Value[]): void {
    if (optionalUint(f, 0, "remote-channel") !== null) throw new Amqp1Error(CONDITION.notImplemented, "sessions are begun by the client");
    this.nextIncomingId = uintField(f, 1, "next-outgoing-id", 0);
    this.remoteIncomingWindow = uintField(f, 2, "incoming-window", 0);
    this.send(PERFORMATIVE.begin, [
      { type: "ushort", value: this.channel },
      { type: "uint", value: this.nextOutgoingId },
      { type: "uint", value: this.incomingWindow },
      { type: "uint", value: OUTGOING_WINDOW },
      { type: "uint", value: HANDLE_MAX },
    ]);
  }

  send(code: number, fields: readonly Amqp10Value[]): void {
    this.conn.output.write(performativeFrame(FRAME_AMQP, this.channel, code, fields));
  }

  onPerformative(p: Performative, frame: Frame): void {
    if (this.ending) {
      if (p.code === PERFORMATIVE.end) this.conn.sessionEnded(this.channel);
      return;
    }
    try {
      this.dispatch(p, frame);
    } catch (err) {
      this.onError(err, p);
    }
  }

  private dispatch(p: Performative, frame: Frame): void {
    switch (p.code) {
      case PERFORMATIVE.attach:
        return this.onAttach(p.fields);
      case PERFORMATIVE.flow:
        return this.onFlow(p.fields);
      case PERFORMATIVE.transfer:
        return this.onTransfer(p, frame);
      case PERFORMATIVE.disposition:
        return this.onDisposition(dispositionFacts(p));
      case PERFORMATIVE.detach:
        return this.onDetach(p.fields);
      case PERFORMATIVE.end:
        this.release();
        this.send(PERFORMATIVE.end, []);
        this.conn.sessionEnded(this.channel);
        return;
      default:
        throw new Amqp1Error(CONDITION.illegalState, `performative 0x${p.code.toString(16)} on a session`);
    }
  }

  /** An error from a frame of this session: detach its link, end the session, or (rethrown) close the connection. */
  private onError(err: unknown, p: Performative): void {
    const e = fromBrokerError(err, "link");
    if (e.scope === "connection") throw e;
    const handle = handleOf(p);
    const link = handle === null ? undefined : this.links.get(handle);
    if (e.scope === "link" && handle !== null && (link !== undefined || p.code === PERFORMATIVE.attach)) {
      this.conn.log.info("AMQP 1.0 link detached with an error", { condition: e.condition, description: e.description });
      if (p.code === PERFORMATIVE.attach) this.detachUnattached(p.fields, e);
      else this.detachLink(link!, e);
      return;
    }
    this.endWithError(e);
  }

  private endWithError(e: Amqp1Error): void {
    this.conn.log.info("AMQP 1.0 session ended with an error", { condition: e.condition, description: e.description });
    this.release();
    this.send(PERFORMATIVE.end, [errorValue(e)]);
    this.ending = true;
  }

  /** The connection's grants changed (a refreshed token): a receiver whose queue is no longer readable ends the session, as RabbitMQ 4 (connection-credential.ts). */
  recheckReads(): void {
    const c = this.conn;
    for (const l of this.links.values()) {
      const q = l instanceof OutgoingLink ? l.queue : null;
      if (q !== null && !c.permissions!.allows(c.vhost, "read", q.name)) return this.endWithError(new Amqp1Error(CONDITION.unauthorizedAccess, `read access to queue '${q.name}' in vhost '${c.vhost}' refused for user '${c.user}'`, "session"));
    }
  }

  private onAttach(f: readonly Amqp10Value[]): void {
    const name = textField(f, 0, "name") ?? "";
    const handle = uintField(f, 1, "handle", -1);
    if (handle < 0) throw new Amqp1Error(CONDITION.invalidField, "attach without a handle", "session");
    if (this.links.has(handle) || this.detaching.has(handle)) throw new Amqp1Error(CONDITION.handleInUse, `handle ${handle} is in use`, "session");
    if (handle > HANDLE_MAX) throw new Amqp1Error(CONDITION.invalidField, `handle ${handle} > handle-max ${HANDLE_MAX}`, "session");
    // role false: the peer sends (our link receives); true: the peer receives.
    const peerReceives = boolField(f, 2, "role", false);
    const link = managementLink(this, this.managementPairs, name, handle, f, peerReceives) ?? (peerReceives ? new OutgoingLink(this, name, handle, f) : new IncomingLink(this, name, handle, f));
    // Registered once attached: a refused attach is answered by detachUnattached (onError).
    link.attach();
    this.links.set(handle, link);
  }

  /** A link's attach was refused: attach back with no terminus, then detach with the error (part 2 §2.6.3). */
  private detachUnattached(f: readonly Amqp10Value[], e: Amqp1Error): void {
    const handle = uintField(f, 1, "handle", 0);
    const role = boolField(f, 2, "role", false);
    this.send(PERFORMATIVE.attach, [{ type: "string", value: textField(f, 0, "name") ?? "" }, { type: "uint", value: handle }, { type: "boolean", value: !role }, { type: "null" }, { type: "null" }, { type: "null" }, { type: "null" }, ...(role ? [{ type: "null" as const }, { type: "null" as const }, { type: "uint" as const, value: 0 }] : [])]);
    this.send(PERFORMATIVE.detach, [{ type: "uint", value: handle }, { type: "boolean", value: true }, errorValue(e)]);
    this.links.delete(handle);
    this.detaching.add(handle);
  }

  detachLink(link: SessionLink, e: Amqp1Error | null): void {
    this.links.delete(link.handle);
    if (e !== null) this.detaching.add(link.handle);
    link.release();
    this.send(PERFORMATIVE.detach, e === null ? [{ type: "uint", value: link.handle }, { type: "boolean", value: true }] : [{ type: "uint", value: link.handle }, { type: "boolean", value: true }, errorValue(e)]);
  }

  private onDetach(f: readonly Amqp10Value[]): void {
    const handle = uintField(f, 0, "handle", 0);
    if (this.detaching.delete(handle)) return;
    const link = this.links.get(handle);
    if (link === undefined) throw new Amqp1Error(CONDITION.unattachedHandle, `detach of handle ${handle}, which is not attached`, "session");
    this.detachLink(link, null);
  }

  private onFlow(f: readonly Amqp10Value[]): void {
    const nextIncoming = optionalUint(f, 0, "next-incoming-id") ?? 0;
    const window = uintField(f, 1, "incoming-window", 0);
    this.remoteIncomingWindow = nextIncoming + window - this.nextOutgoingId;
    const handle = optionalUint(f, 4, "handle");
    if (handle !== null) {
      const link = this.links.get(handle);
      if (link !== undefined) link.onFlow(f);
      // Frames the peer sent before it saw our detach are dropped (part 2 §2.6.5).
      else if (!this.detaching.has(handle)) throw new Amqp1Error(CONDITION.unattachedHandle, `flow on handle ${handle}, which is not attached`, "session");
    } else if (boolField(f, 9, "echo", false)) {
      this.sendSessionFlow();
    }
    this.resume();
  }

  sendSessionFlow(): void {
    this.send(PERFORMATIVE.flow, [
      { type: "uint", value: this.nextIncomingId },
      { type: "uint", value: this.incomingLeft },
      { type: "uint", value: this.nextOutgoingId },
      { type: "uint", value: OUTGOING_WINDOW },
    ]);
  }

  /** Flow fields of the session part, for a link's flow. */
  sessionFlowFields(): Amqp10Value[] {
    return [
      { type: "uint", value: this.nextIncomingId },
      { type: "uint", value: this.incomingLeft },
      { type: "uint", value: this.nextOutgoingId },
      { type: "uint", value: OUTGOING_WINDOW },
    ];
  }

  private onTransfer(p: Performative, frame: Frame): void {
    const t = transferFacts(p);
    this.nextIncomingId = (this.nextIncomingId + 1) >>> 0;
    if (--this.incomingLeft < 0) throw new Amqp1Error(CONDITION.windowViolation, `a transfer past the incoming window of ${this.incomingWindow}`, "session");
    if (this.incomingLeft < this.incomingWindow / 2 && !this.windowHeld) this.topUpWindow();
    const handle = t.handle;
    const link = this.links.get(handle);
    const body = frame.body;
    if (link instanceof IncomingLink) return link.onTransfer(t, body, frame.more);
    if (link === undefined) {
      if (this.detaching.has(handle)) return;
      throw new Amqp1Error(CONDITION.unattachedHandle, `transfer on handle ${handle}, which is not attached`, "session");
    }
    if (link instanceof ManagementRequestLink) return link.onTransfer(p.fields, frame.more === null ? body.subarray(t.payloadAt) : Buffer.concat([body.subarray(t.payloadAt), ...frame.more]));
    throw new Amqp1Error(CONDITION.illegalState, `transfer on handle ${handle}, a link the broker sends on`, "session");
  }

  /** Reopens our incoming window, unless an alarm is on (then once every alarm clears). */
  private topUpWindow(): void {
    const alarms = this.conn.settings.alarms;
    if (alarms !== null && alarms.reason !== null) {
      this.windowHeld = true;
      alarms.hold(this.windowBlock);
      return;
    }
    this.incomingLeft = this.incomingWindow;
    this.sendSessionFlow();
  }

  /** Our transfer frames went out: they count against the peer's window. */
  sent(frames: number): void {
    this.nextOutgoingId = (this.nextOutgoingId + frames) >>> 0;
    this.remoteIncomingWindow -= frames;
  }

  /** The peer settles our deliveries (role receiver): first..last with an outcome (accepted when none), in one pass. */
  private onDisposition(d: DispositionFacts): void {
    if (!d.role) throw new Amqp1Error(CONDITION.notImplemented, "the broker settles its receiving links' deliveries itself", "session");
    const outcome = d.outcome;
    if (outcome === null) return; // a state without settlement (received): nothing to do yet
    const first = d.first;
    const count = ((d.last - first) >>> 0) + 1;
    const unsettled = this.unsettled;
    if (count <= unsettled.size) {
      for (let i = 0, id = first; i < count; i++, id = (id + 1) >>> 0) this.settleOne(id, outcome);
    } else {
      for (const id of [...unsettled.keys()]) if (((id - first) >>> 0) < count) this.settleOne(id, outcome);
    }
  }

  private settleOne(id: number, outcome: Outcome): void {
    const u = this.unsettled.get(id);
    if (u === undefined) return;
    this.unsettled.delete(id);
    u.link.unsettledCount--;
    applyOutcome(u.queue, u.entry, outcome);
  }

  /** A delivery from an incoming link settles with accepted: sent in ranges at the end of the read. */
  acceptLater(deliveryId: number): void {
    this.accepted.push(deliveryId);
  }

  /** Sends an outcome other than accepted at once. */
  settleIncoming(deliveryId: number, state: Amqp10Value): void {
    this.send(PERFORMATIVE.disposition, disposition(deliveryId, deliveryId, state));
  }

  grantLater(link: { grant(): void }): void {
    this.grants.push(link);
  }

  /** End of a socket read: the accepted deliveries as dispositions of consecutive ranges, then credit top-ups. */
  flushAccepted(): void {
    while (this.grants.length > 0) this.grants.pop()!.grant();
    const ids = this.accepted;
    if (ids.length === 0) return;
    this.accepted = [];
    let start = ids[0]!;
    let prev = start;
    const state = acceptedState;
    for (let i = 1; i <= ids.length; i++) {
      const id = ids[i];
      if (id !== undefined && id === ((prev + 1) >>> 0)) {
        prev = id;
        continue;
      }
      this.send(PERFORMATIVE.disposition, disposition(start, prev, state));
      if (id !== undefined) start = prev = id;
    }
  }

  /** The socket drained or windows opened: links with credit take deliveries again. */
  resume(): void {
    for (const link of this.links.values()) if (link instanceof OutgoingLink || link instanceof ManagementResponseLink) link.resume();
  }

  /** The session ends (or its connection): links let go of their queues; unsettled deliveries go back. */
  release(): void {
    if (this.windowHeld) this.conn.settings.alarms?.release(this.windowBlock);
    for (const link of this.links.values()) link.release();
    this.links.clear();
  }

  info(): ChannelInfo {
    const c = this.conn;
    const consumers = [...this.links.values()].filter((l): l is OutgoingLink => l instanceof OutgoingLink);
    const stats = { publish: 0, confirm: 0, deliver: 0, deliverNoAck: 0, get: 0, getNoAck: 0, ack: 0, redeliver: 0, returnUnroutable: 0, dropUnroutable: 0, getEmpty: 0 };
    for (const l of this.links.values()) l.addStats(stats);
    return {
      number: this.channel,
      name: `${c.name} (${this.channel})`,
      connectionName: c.name,
      peerHost: c.peerHost,
      peerPort: c.peerPort,
      user: c.user,
      vhost: c.vhost,
      state: this.ending ? "closing" : "running",
      consumerCount: consumers.length,
      prefetchCount: 0,
      globalPrefetchCount: 0,
      messagesUnacknowledged: this.unsettled.size,
      messagesUnconfirmed: 0,
      messagesUncommitted: 0,
      acksUncommitted: 0,
      confirm: false,
      transactional: false,
      createdAt: this.createdAt,
      stats,
      consumers: consumers.map((l) => l.consumerInfo()),
    };
  }
}

/** The link handle a performative names, when it names one. */
function handleOf(p: Performative): number | null {
  try {
    if (p.code === PERFORMATIVE.attach) return optionalUint(p.fields, 1, "handle");
    if (p.code === PERFORMATIVE.flow) return optionalUint(p.fields, 4, "handle");
    if (p.code === PERFORMATIVE.transfer || p.code === PERFORMATIVE.detach) return optionalUint(p.fields, 0, "handle");
  } catch {
    return null;
  }
  return null;
}

const acceptedState: Amqp10Value = { type: "described", descriptor: { type: "ulong", value: BigInt(PERFORMATIVE.accepted) }, value: { type: "list", value: [] } };
