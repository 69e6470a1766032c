/**
 * The two performatives of every message — transfer and disposition — read by hand from the
 * frame body (the hot path), as src/bench/amqp10-frame-scanner.ts reads them for the client:
 * the few fields the broker acts on become numbers and booleans of one object, with no
 * Amqp10Value per field, no BigInt descriptor and no list array. Everything else — and any
 * transfer or disposition written in a form the hand reader does not expect (a field of another
 * encoding, a delivery state other than accepted, extra fields) — goes to the full decoder
 * (performatives.ts readPerformative), so a peer sees the same errors either way; `fields` is
 * decoded from the same bytes on demand (error paths, the management node's links).
 *
 * What a hand read accepts: each field null or in one of the encodings the spec gives its type
 * (uint: 0x43, 0x52, 0x70; boolean: 0x41, 0x42, 0x56; binary: 0xa0, 0xb0; ubyte 0x50), a list8
 * or list32, and a state that is absent or accepted (an empty list).
 */
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { readOutcome, type Outcome } from "./delivery-outcomes.js";
import { boolField, optionalUint, PERFORMATIVE, readPerformative, uintField, type Performative } from "./performatives.js";

/** The transfer fields the broker acts on (part 2 §2.7.5). */
export interface TransferFacts {
  readonly handle: number;
  /** -1 when absent (a continuation frame may leave it out). */
  readonly deliveryId: number;
  readonly settled: boolean;
  readonly more: boolean;
  readonly aborted: boolean;
  /** Where the payload starts in the frame body. */
  readonly payloadAt: number;
}

/** The disposition fields the broker acts on (part 2 §2.7.6). */
export interface DispositionFacts {
  readonly role: boolean;
  readonly first: number;
  readonly last: number;
  /** null: a state that settles nothing (received). */
  readonly outcome: Outcome | null;
}

const NONE = -1;
/** A value the hand reader does not take: the frame goes to the full decoder. */
const OTHER = -2;

/** A transfer or disposition read by hand; its fields as Amqp10Values only when asked for. */
export class HandRead implements Performative, TransferFacts, DispositionFacts {
  handle = 0;
  deliveryId = NONE;
  settled = false;
  more = false;
  aborted = false;
  role = false;
  first = 0;
  last = 0;
  /** A hand-read disposition's state is accepted (or absent, which means accepted). */
  readonly outcome: Outcome = "accepted";
  payloadAt = 0;
  /** Where the hand reader is in the body (used only while reading: no cursor object per frame). */
  at = 0;
  private decoded: readonly Amqp10Value[] | null = null;

  constructor(
    readonly code: number,
    private readonly body: Buffer,
  ) {}

  get fields(): readonly Amqp10Value[] {
    return (this.decoded ??= readPerformative(this.body).fields);
  }
}

/** A frame body as a performative: transfers and dispositions by hand when they allow it, the rest decoded. */
export function readFramePerformative(body: Buffer): Performative {
  if (body.length > 4 && body[0] === 0x00 && body[1] === 0x53) {
    const code = body[2]!;
    if (code === PERFORMATIVE.transfer || code === PERFORMATIVE.disposition) {
      const h = new HandRead(code, body);
      if (code === PERFORMATIVE.transfer ? readTransfer(body, h) : readDisposition(body, h)) return h;
    }
  }
  return readPerformative(body);
}

/** A transfer's facts: read by hand, or from its decoded fields (type-checked as the full path checks them). */
export function transferFacts(p: Performative): TransferFacts {
  if (p instanceof HandRead) return p;
  const f = p.fields;
  return {
    handle: uintField(f, 0, "handle", 0),
    deliveryId: optionalUint(f, 1, "delivery-id") ?? NONE,
    settled: boolField(f, 4, "settled", false),
    more: boolField(f, 5, "more", false),
    aborted: boolField(f, 9, "aborted", false),
    payloadAt: p.payloadAt,
  };
}

/** A disposition's facts: read by hand, or from its decoded fields. */
export function dispositionFacts(p: Performative): DispositionFacts {
  if (p instanceof HandRead) return p;
  const f = p.fields;
  const first = uintField(f, 1, "first", 0);
  return { role: boolField(f, 0, "role", false), first, last: optionalUint(f, 2, "last") ?? first, outcome: readOutcome(f, 4) };
}

/** A cursor over one list's fields in a frame body (the HandRead being filled). */
interface Cursor {
  at: number;
}

/** The list after the descriptor (at byte 3): its field count (the cursor past it); -1 if neither list8 nor list32. */
function listCount(body: Buffer, c: Cursor): number {
  const ctor = body[3];
  if (ctor === 0xc0) {
    c.at = 6;
    return body[5]!;
  }
  if (ctor === 0xd0 && body.length >= 12) {
    c.at = 12;
    return body.readUInt32BE(8);
  }
  return -1;
}

/** Where the list that listCount read ends. */
function listEnd(body: Buffer): number {
  return body[3] === 0xc0 ? 5 + body[4]! : 8 + body.readUInt32BE(4);
}

function readUint(body: Buffer, c: Cursor): number {
  const code = body[c.at++];
  if (code === 0x40) return NONE;
  if (code === 0x43) return 0;
  if (code === 0x52) return body[c.at++] ?? OTHER;
  if (code === 0x70 && c.at + 4 <= body.length) {
    c.at += 4;
    return body.readUInt32BE(c.at - 4);
  }
  return OTHER;
}

/** 1 true, 0 false, NONE null, OTHER anything else. */
function readBool(body: Buffer, c: Cursor): number {
  const code = body[c.at++];
  if (code === 0x41) return 1;
  if (code === 0x42) return 0;
  if (code === 0x40) return NONE;
  if (code === 0x56) {
    const b = body[c.at++];
    return b === undefined ? OTHER : b !== 0 ? 1 : 0;
  }
  return OTHER;
}

/** Skips a binary or null; false for anything else. */
function skipBinary(body: Buffer, c: Cursor): boolean {
  const code = body[c.at++];
  if (code === 0x40) return true;
  if (code === 0xa0 && c.at < body.length) {
    c.at += 1 + body[c.at]!;
    return true;
  }
  if (code === 0xb0 && c.at + 4 <= body.length) {
    c.at += 4 + body.readUInt32BE(c.at);
    return true;
  }
  return false;
}

/** transfer(handle, delivery-id, delivery-tag, message-format, settled, more, rcv-settle-mode, state, resume, aborted, batchable). */
function readTransfer(body: Buffer, h: HandRead): boolean {
  const c: Cursor = h;
  const count = listCount(body, c);
  const end = count < 0 ? 0 : listEnd(body);
  if (count < 1 || count > 11 || end > body.length) return false;
  for (let i = 0; i < count; i++) {
    let v: number;
    switch (i) {
      case 0:
        if ((v = readUint(body, c)) < 0) return false;
        h.handle = v;
        break;
      case 1:
        if ((v = readUint(body, c)) === OTHER) return false;
        h.deliveryId = v;
        break;
      case 2:
        if (!skipBinary(body, c)) return false;
        break;
      case 3:
        if (readUint(body, c) === OTHER) return false;
        break;
      case 6:
        // rcv-settle-mode: a ubyte or null.
        v = body[c.at++]!;
        if (v === 0x50) c.at++;
        else if (v !== 0x40) return false;
        break;
      case 7:
        // state: only none is read by hand.
        if (body[c.at++] !== 0x40) return false;
        break;
      default:
        if ((v = readBool(body, c)) === OTHER) return false;
        if (i === 4) h.settled = v === 1;
        else if (i === 5) h.more = v === 1;
        else if (i === 9) h.aborted = v === 1;
    }
  }
  if (c.at !== end) return false;
  h.payloadAt = end;
  return true;
}

/** disposition(role, first, last, settled, state, batchable), with no state or accepted. */
function readDisposition(body: Buffer, h: HandRead): boolean {
  const c: Cursor = h;
  const count = listCount(body, c);
  if (count < 2 || count > 6 || listEnd(body) !== body.length) return false;
  let v = readBool(body, c);
  if (v < 0) return false;
  h.role = v === 1;
  if ((v = readUint(body, c)) < 0) return false;
  h.first = h.last = v;
  if (count > 2) {
    if ((v = readUint(body, c)) === OTHER) return false;
    if (v !== NONE) h.last = v;
  }
  if (count > 3 && readBool(body, c) === OTHER) return false;
  if (count > 4) {
    // accepted: described 0x24 with an empty list (list0, or a list8 of no fields).
    const at = c.at;
    if (body[at] === 0x40) c.at++;
    else if (body[at] === 0x00 && body[at + 1] === 0x53 && body[at + 2] === PERFORMATIVE.accepted) {
      if (body[at + 3] === 0x45) c.at += 4;
      else if (body[at + 3] === 0xc0 && body[at + 4] === 1 && body[at + 5] === 0) c.at += 6;
      else return false;
    } else return false;
  }
  if (count > 5 && readBool(body, c) === OTHER) return false;
  return c.at === body.length;
}
