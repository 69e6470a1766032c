/**
 * The link pair a client talks to the `/management` node over (AMQP Link Pair CS 01, as RabbitMQ
 * 4 requires it): a sending link with target `/management` (requests) and a receiving link with
 * source `/management` (responses), both named alike, both attached with the link property
 * `paired` = true, both pre-settled. ManagementPairs joins the halves by link name per session;
 * a request arriving before its pair's response half is attached, or without credit for the
 * response, ends the session with amqp:precondition-failed (RabbitMQ 4).
 *
 * Credit: the request half grants MANAGEMENT_CREDIT (RabbitMQ 4's 8), topped up when half is
 * used. The response half sends within the client's credit; responses wait while the session's
 * window or the socket is full, in order.
 */
import type { ChannelCounters } from "../broker/index.js";
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { str } from "../amqp10/amqp10-value.js";
import { Amqp10DecodeError } from "../amqp10/amqp10-decoder.js";
import { Amqp1Error, CONDITION } from "./amqp1-errors.js";
import type { LinkHost, SessionLink } from "./link-host.js";
import { answerRequest } from "./management-node.js";
import { boolField, compositeField, optionalUint, PERFORMATIVE, textField, uintField } from "./performatives.js";

export const MANAGEMENT_ADDRESS = "/management";
const MANAGEMENT_CREDIT = 8;
const SND_SETTLED = 1;
const NULL: Amqp10Value = { type: "null" };

interface Pair {
  readonly clientAddress: string | null;
  requests: ManagementRequestLink | null;
  responses: ManagementResponseLink | null;
}

/** A session's management link pairs, by link name. */
export class ManagementPairs {
  private readonly pairs = new Map<string, Pair>();

  join(name: string, clientAddress: string | null, link: ManagementRequestLink | ManagementResponseLink): void {
    const half = link instanceof ManagementRequestLink ? "requests" : "responses";
    const pair = this.pairs.get(name);
    if (pair === undefined) {
      this.pairs.set(name, { clientAddress, requests: null, responses: null, [half]: link });
      return;
    }
    if (pair[half] !== null || pair.clientAddress !== clientAddress) throw new Amqp1Error(CONDITION.preconditionFailed, `invalid attach for management link pair '${name}'`, "link");
    if (half === "requests") pair.requests = link as ManagementRequestLink;
    else pair.responses = link as ManagementResponseLink;
  }

  leave(name: string, link: ManagementRequestLink | ManagementResponseLink): void {
    const pair = this.pairs.get(name);
    if (pair === undefined) return;
    if (pair.requests === link) pair.requests = null;
    if (pair.responses === link) pair.responses = null;
    if (pair.requests === null && pair.responses === null) this.pairs.delete(name);
  }

  responsesOf(name: string): ManagementResponseLink | null {
    return this.pairs.get(name)?.responses ?? null;
  }
}

/** The address of an attach's source (i 5) or target (i 6); null when absent. */
function terminusAddress(f: readonly Amqp10Value[], i: number): string | null {
  const t = compositeField(f, i, i === 5 ? "source" : "target");
  if (t === null || t.code === PERFORMATIVE.coordinator) return null;
  return textField(t.fields, 0, "address");
}

/** The management half for an attach naming `/management`; null for any other link. */
export function managementLink(session: LinkHost, pairs: ManagementPairs, name: string, handle: number, f: readonly Amqp10Value[], peerReceives: boolean): ManagementRequestLink | ManagementResponseLink | null {
  if (peerReceives) return terminusAddress(f, 5) === MANAGEMENT_ADDRESS ? new ManagementResponseLink(session, pairs, name, handle, f) : null;
  return terminusAddress(f, 6) === MANAGEMENT_ADDRESS ? new ManagementRequestLink(session, pairs, name, handle, f) : null;
}

/** The attach's link properties (i 13) hold paired = true; otherwise the attach is refused. */
function checkPaired(f: readonly Amqp10Value[], name: string): void {
  const props = f[13];
  const paired = props?.type === "map" && props.value.some(([k, v]) => (k.type === "symbol" || k.type === "string") && k.value === "paired" && v.type === "boolean" && v.value);
  if (!paired) throw new Amqp1Error(CONDITION.invalidField, `link '${name}': link property 'paired' is not set to boolean value 'true'`, "link");
}

function checkPreSettled(f: readonly Amqp10Value[], name: string): void {
  if (uintField(f, 3, "snd-settle-mode", 2) !== SND_SETTLED) throw new Amqp1Error(CONDITION.invalidField, `link '${name}': a management link pair is pre-settled (snd-settle-mode settled)`, "link");
}

/** The client's requests (the broker receives). */
export class ManagementRequestLink implements SessionLink {
  private credit = 0;
  private deliveryCount: number;
  private pieces: Buffer[] | null = null;
  private size = 0;
  private requests = 0;

  constructor(
    private readonly session: LinkHost,
    private readonly pairs: ManagementPairs,
    readonly name: string,
    readonly handle: number,
    private readonly fields: readonly Amqp10Value[],
  ) {
    this.deliveryCount = uintField(fields, 9, "initial-delivery-count", 0);
  }

  attach(): void {
    const f = this.fields;
    checkPaired(f, this.name);
    checkPreSettled(f, this.name);
    this.pairs.join(this.name, terminusAddress(f, 5), this);
    const max = this.session.conn.settings.maxMessageSize;
    this.session.send(PERFORMATIVE.attach, [str(this.name), { type: "uint", value: this.handle }, { type: "boolean", value: true }, { type: "ubyte", value: SND_SETTLED }, { type: "ubyte", value: 0 }, f[5] ?? NULL, f[6] ?? NULL, NULL, NULL, NULL, { type: "ulong", value: BigInt(max) }, NULL, NULL, f[13] ?? NULL]);
    this.grant();
  }

  private grant(): void {
    this.credit = MANAGEMENT_CREDIT;
    this.session.send(PERFORMATIVE.flow, [...this.session.sessionFlowFields(), { type: "uint", value: this.handle }, { type: "uint", value: this.deliveryCount }, { type: "uint", value: this.credit }]);
  }

  onFlow(f: readonly Amqp10Value[]): void {
    // The sender's delivery-count is authoritative (part 2 §2.6.7); the credit stays ours to give.
    const count = optionalUint(f, 5, "delivery-count");
    if (count !== null) {
      this.credit = Math.max(0, this.deliveryCount + this.credit - count);
      this.deliveryCount = count;
    }
    if (boolField(f, 9, "echo", false)) this.grant();
  }

  onTransfer(f: readonly Amqp10Value[], payload: Buffer): void {
    if (this.pieces === null) {
      if (this.credit <= 0) throw new Amqp1Error(CONDITION.transferLimitExceeded, `management link '${this.name}': a request without link credit`, "link");
      // Every response is a message anyway: requests are pre-settled (RabbitMQ 4 refuses others).
      if (!boolField(f, 4, "settled", false)) throw new Amqp1Error(CONDITION.invalidField, `management link '${this.name}': requests must be sent settled`, "link");
      this.pieces = [];
      this.size = 0;
      this.credit--;
      this.deliveryCount = (this.deliveryCount + 1) >>> 0;
    }
    if (boolField(f, 9, "aborted", false)) {
      this.pieces = null;
      return;
    }
    this.size += payload.length;
    const max = this.session.conn.settings.maxMessageSize;
    if (this.size > max) {
      this.pieces = null;
      throw new Amqp1Error(CONDITION.messageSizeExceeded, `management request size ${this.size} exceeds max_message_size ${max}`, "link");
    }
    // A copy: the payload is a slice of a read slab that goes back to its pool (amqp1-frames.ts),
    // and a request is rare and kept past this read (its later transfers, its answer).
    this.pieces.push(Buffer.from(payload));
    if (boolField(f, 5, "more", false)) return;
    const request = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces);
    this.pieces = null;
    if (this.credit <= MANAGEMENT_CREDIT / 2) this.grant();
    this.answer(request);
  }

  private answer(request: Buffer): void {
    const responses = this.pairs.responsesOf(this.name);
    if (responses === null) throw new Amqp1Error(CONDITION.preconditionFailed, `management link pair '${this.name}': a request before its response link is attached`, "session");
    if (!responses.hasCredit) throw new Amqp1Error(CONDITION.preconditionFailed, `management link pair '${this.name}': no credit on the response link for the response`, "session");
    let response: Buffer[] | Promise<Buffer[]>;
    try {
      response = answerRequest(this.session.conn, request);
    } catch (err) {
      if (err instanceof Amqp10DecodeError) throw new Amqp1Error(CONDITION.decodeError, `management request: ${err.message}`, "link");
      throw err;
    }
    this.requests++;
    responses.respond(response);
  }

  release(): void {
    this.pieces = null;
    this.pairs.leave(this.name, this);
  }

  addStats(c: ChannelCounters): void {
    c.publish += this.requests;
  }
}

/** A response still on its way from a queue's leader: its place in the order is kept meanwhile. */
interface LaterResponse {
  pieces: Buffer[] | null;
}

/**
 * The node's responses (the broker sends), pre-settled, within the client's credit, in request
 * order: a response from another worker (a LaterResponse) holds back those behind it until it
 * arrives. Credit and delivery-count are taken when the request is answered, as for a response
 * waiting on the session's window.
 */
export class ManagementResponseLink implements SessionLink {
  private credit = 0;
  private deliveryCount = 0;
  private readonly pending: (Buffer[] | LaterResponse)[] = [];
  private responses = 0;

  constructor(
    private readonly session: LinkHost,
    private readonly pairs: ManagementPairs,
    readonly name: string,
    readonly handle: number,
    private readonly fields: readonly Amqp10Value[],
  ) {}

  get hasCredit(): boolean {
    return this.credit > 0;
  }

  attach(): void {
    const f = this.fields;
    checkPaired(f, this.name);
    this.pairs.join(this.name, terminusAddress(f, 6), this);
    this.session.send(PERFORMATIVE.attach, [str(this.name), { type: "uint", value: this.handle }, { type: "boolean", value: false }, { type: "ubyte", value: SND_SETTLED }, f[4] ?? NULL, f[5] ?? NULL, f[6] ?? NULL, NULL, NULL, { type: "uint", value: 0 }, f[10] ?? NULL, NULL, NULL, f[13] ?? NULL]);
  }

  onFlow(f: readonly Amqp10Value[]): void {
    const rcvCount = optionalUint(f, 5, "delivery-count") ?? 0;
    const linkCredit = optionalUint(f, 6, "link-credit") ?? 0;
    // credit = the receiver's delivery-count + its link-credit − ours (part 2 §2.6.7), modulo 2^32.
    this.credit = Math.max(0, (rcvCount + linkCredit - this.deliveryCount) | 0);
    const drain = boolField(f, 8, "drain", false);
    if (drain) {
      // Responses are sent as requests come: nothing more to send, so the credit is spent.
      this.deliveryCount = (this.deliveryCount + this.credit) >>> 0;
      this.credit = 0;
    }
    if (drain || boolField(f, 9, "echo", false)) {
      this.session.send(PERFORMATIVE.flow, [...this.session.sessionFlowFields(), { type: "uint", value: this.handle }, { type: "uint", value: this.deliveryCount }, { type: "uint", value: this.credit }, { type: "uint", value: 0 }, { type: "boolean", value: drain }]);
    }
  }

  respond(message: Buffer[] | Promise<Buffer[]>): void {
    this.credit--;
    this.deliveryCount = (this.deliveryCount + 1) >>> 0;
    if (message instanceof Promise) {
      const later: LaterResponse = { pieces: null };
      this.pending.push(later);
      // answerRequest's promise never rejects; after release() `later` is no longer pending.
      void message.then((pieces) => {
        later.pieces = pieces;
        this.resume();
      });
      return;
    }
    this.pending.push(message);
    this.resume();
  }

  /** The socket drained, the session's window opened or a leader answered: ready responses go out in order. */
  resume(): void {
    const s = this.session;
    while (this.pending.length > 0 && s.canSend) {
      const head = this.pending[0]!;
      const pieces = Array.isArray(head) ? head : head.pieces;
      if (pieces === null) return;
      this.pending.shift();
      const id = s.nextDeliveryId;
      s.nextDeliveryId = (id + 1) >>> 0;
      s.sent(s.conn.output.transfer(s.channel, this.handle, id, true, pieces));
      this.responses++;
    }
  }

  release(): void {
    this.pending.length = 0;
    this.pairs.leave(this.name, this);
  }

  addStats(c: ChannelCounters): void {
    c.deliverNoAck += this.responses;
  }
}
