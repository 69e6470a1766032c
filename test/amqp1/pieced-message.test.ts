// pieced-message.ts: a message read across the pieces it came in (several transfers) converts
// exactly as fromAmqp1 converts the joined bytes — for generated messages cut at every byte
// boundary, into single bytes, and into random runs — with its data body and rest as slices of
// the pieces (no copy); malformed bytes get fromAmqp1's own error, text for text.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Amqp10Value } from "../../src/amqp10/amqp10-value.js";
import { encodeAmqp10 } from "../../src/amqp10/amqp10-encoder.js";
import { encodeMessage, type Amqp10Map, type Amqp10Message } from "../../src/amqp10/message-sections.js";
import { fromAmqp1, type ConvertedMessage } from "../../src/amqp1/message-conversion.js";
import { readPiecedMessage } from "../../src/amqp1/pieced-message.js";
import { joinBody, type Body } from "../../src/broker/values/message-body.js";
import { OriginalForms } from "../../src/amqp1/original-form.js";
import { createMessage } from "../../src/broker/message.js";
import { recordTail } from "../../src/store/message-record.js";

/** A small seeded generator (mulberry32), so a failure repeats. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const str = (value: string): Amqp10Value => ({ type: "string", value });
const sym = (value: string): Amqp10Value => ({ type: "symbol", value });
const section = (code: number, value: Amqp10Value): Buffer => encodeAmqp10({ type: "described", descriptor: { type: "ulong", value: BigInt(code) }, value });
const bytesOf = (size: number, rnd: () => number): Buffer => Buffer.from(Array.from({ length: size }, () => Math.floor(rnd() * 256)));

/** A generated message's bytes: any mix of the sections a sender may send, bodies of every kind. */
function generated(rnd: () => number): Buffer {
  const pick = (p: number): boolean => rnd() < p;
  const m: { -readonly [K in keyof Amqp10Message]: Amqp10Message[K] } = {};
  if (pick(0.6)) m.header = [{ type: "boolean", value: pick(0.5) }, { type: "ubyte", value: Math.floor(rnd() * 10) }, { type: "uint", value: Math.floor(rnd() * 100000) }];
  if (pick(0.4)) m.messageAnnotations = [[sym("x-opt-a"), str("annotated")], [sym("x-b"), { type: "int", value: -5 }]] as Amqp10Map;
  if (pick(0.5)) {
    m.properties = { messageId: str(`id-${Math.floor(rnd() * 1000)}`), contentType: sym("text/plain") };
    if (pick(0.5)) m.properties = { ...m.properties, to: str("/queues/q"), subject: str("subj") };
  }
  if (pick(0.5)) m.applicationProperties = [[str("k1"), str("v".repeat(Math.floor(rnd() * 40)))], [str("k2"), { type: "long", value: 77n }]] as Amqp10Map;
  const pre = encodeMessage(m);
  const delivery = pick(0.2) ? [section(0x71, { type: "map", value: [[sym("x-d"), str("d")]] })] : [];
  const body: Buffer[] = [];
  const kind = rnd();
  if (kind < 0.55) {
    const n = Math.floor(rnd() * 3) + (pick(0.2) ? 0 : 1);
    for (let i = 0; i < n; i++) body.push(section(0x75, { type: "binary", value: bytesOf(pick(0.3) ? 300 + Math.floor(rnd() * 100) : Math.floor(rnd() * 60), rnd) }));
  } else if (kind < 0.7) {
    body.push(section(0x77, { type: "binary", value: bytesOf(Math.floor(rnd() * 300), rnd) }));
  } else if (kind < 0.8) {
    body.push(section(0x77, str("a string value ".repeat(Math.floor(rnd() * 5)))));
  } else if (kind < 0.9) {
    body.push(section(0x77, { type: "list", value: [str("x"), { type: "int", value: 3 }, { type: "map", value: [[str("k"), str("v")]] }] }));
  } else {
    body.push(section(0x76, { type: "list", value: [{ type: "int", value: 1 }] }), section(0x76, { type: "list", value: [str("two")] }));
  }
  const footer = pick(0.25) ? [section(0x78, { type: "map", value: [[sym("x-f"), { type: "uint", value: 9 }]] })] : [];
  // The header first, delivery-annotations next (part 3 §3.2), then the rest in order.
  const [first, ...others] = pre;
  const head = m.header !== undefined && first !== undefined ? [first, ...delivery, ...others] : [...delivery, ...pre];
  return Buffer.concat([...head, ...body, ...footer]);
}

const bodyBytes = (b: Body): Buffer => joinBody(b);
const seededBytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + 7) & 0xff));

/** The pieced read of `pieces` equals fromAmqp1 of their joined bytes. */
function same(pieces: readonly Buffer[], full: ConvertedMessage, what: string): void {
  const got = readPiecedMessage(pieces);
  assert.deepEqual(got.properties, full.properties, what);
  assert.deepEqual(bodyBytes(got.body), bodyBytes(full.body), what);
  assert.deepEqual(got.header, full.header, what);
  assert.deepEqual(bodyBytes(got.rest), bodyBytes(full.rest), what);
  assert.deepEqual([got.subject, got.to, [...got.annotations]], [full.subject, full.to, [...full.annotations]], what);
  // The body and the rest are the pieces' own bytes: no part of them is a copy.
  const memories = new Set(pieces.map((p) => p.buffer));
  for (const part of Array.isArray(got.body) ? got.body : [got.body as Buffer]) if (part.length > 0) assert.ok(memories.has(part.buffer), `${what}: a body part is a copy`);
  for (const part of Array.isArray(got.rest) ? got.rest : [got.rest as Buffer]) if (part.length > 0) assert.ok(memories.has(part.buffer), `${what}: a rest part is a copy`);
}

/** `joined` in pieces of their own memory (as transfers in different slabs), cut at `cuts`. */
function cut(joined: Buffer, cuts: readonly number[]): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  for (const at of [...cuts, joined.length]) {
    out.push(Buffer.from(joined.subarray(from, at)));
    from = at;
  }
  return out;
}

describe("AMQP 1.0 messages read across the transfers they came in", () => {
  it("equals the joined decoder on generated messages cut at every byte boundary", () => {
    const rnd = random(44);
    for (let n = 0; n < 80; n++) {
      const joined = generated(rnd);
      const full = fromAmqp1(joined);
      for (let at = 0; at <= joined.length; at++) same(cut(joined, [at]), full, `message ${n} cut at ${at} of ${joined.length}`);
      same(cut(joined, Array.from({ length: joined.length - 1 }, (_, i) => i + 1)), full, `message ${n} in single bytes`);
      const runs: number[] = [];
      for (let at = 1 + Math.floor(rnd() * 40); at < joined.length; at += 1 + Math.floor(rnd() * 40)) runs.push(at);
      same(cut(joined, runs), full, `message ${n} in runs ${runs.join(",")}`);
    }
  });

  it("keeps a data body in slices of the pieces, in the order it came", () => {
    const data = Buffer.alloc(5000, 7);
    data.write("first", 0);
    data.write("last", 4996);
    const joined = Buffer.concat(encodeMessage({ header: [{ type: "boolean", value: true }], data: [data] }));
    const pieces = cut(joined, [512, 1024, 1536, 2048, 4096]);
    const m = readPiecedMessage(pieces);
    assert.ok(Array.isArray(m.body) && m.body.length === 6);
    assert.deepEqual(joinBody(m.body), data);
    assert.deepEqual(m.properties, { deliveryMode: 2 });
  });

  it("a data body in slices is written once in a store record: it runs on through the original form's parts", () => {
    const data = seededBytes(5000);
    const joined = Buffer.concat(encodeMessage({ header: [{ type: "boolean", value: true }], properties: { subject: str("s") }, data: [data] }));
    const m = readPiecedMessage(cut(joined, [100, 700, 1400, 4000]));
    const original = new OriginalForms().of(m, "", "q");
    const message = createMessage("", "q", m.properties, null, m.body, 1, null, original);
    const originalBytes = original.parts.reduce((n, p) => n + p.length, 0);
    assert.equal(recordTail(message).reduce((n, p) => n + p.length, 0), originalBytes, "the body is not written after the original");
  });

  it("gives malformed bytes fromAmqp1's own error, wherever they are cut", () => {
    const good = Buffer.concat(encodeMessage({ properties: { subject: str("s") }, data: [Buffer.alloc(40, 1)] }));
    const bad = [
      Buffer.from([0x00, 0x53, 0x75, 0xa0, 9, 1, 2]), // data past the end
      Buffer.from([0x00, 0x53, 0x75]), // a cut section
      Buffer.from([0x00, 0x53, 0x70, 0xc0, 9, 1, 0x41]), // a header past the end
      Buffer.from([0x00, 0x53, 0x99, 0x45]), // an unknown section
      Buffer.from([0x40]), // not a section
      Buffer.from([0x00, 0x53, 0x75, 0xa1, 1, 65]), // a data section that is not binary
      Buffer.from([0x00, 0x53, 0x77, 0xa2, 1, 65]), // an unknown constructor in an amqp-value
      Buffer.from([0x00, 0x53, 0x77, 0xc0, 3, 2, 0x41, 0x41, 0x41]), // a list whose items overrun it
      Buffer.from([0x00, 0x53, 0x73, 0xc0, 2, 1, 0x99]), // properties with an unknown constructor
      Buffer.concat([good, Buffer.from([0x00, 0x53, 0x78, 0xc1, 3, 1, 0x41, 0x41])]), // a map with an odd count
      Buffer.concat([good.subarray(0, good.length - 3)]), // cut short in the body
    ];
    for (const b of bad) {
      let expected = "";
      assert.throws(() => fromAmqp1(b), (e: Error) => ((expected = e.message), true), b.toString("hex"));
      for (let at = 0; at <= b.length; at++) {
        assert.throws(() => readPiecedMessage(cut(b, [at])), (e: Error) => e.message === expected, `${b.toString("hex")} cut at ${at}`);
      }
    }
  });

  it("an empty message and empty pieces", () => {
    same([Buffer.alloc(0), Buffer.alloc(0)], fromAmqp1(Buffer.alloc(0)), "empty");
    const joined = Buffer.concat(encodeMessage({ data: [Buffer.from("hello")] }));
    same([Buffer.alloc(0), Buffer.from(joined.subarray(0, 4)), Buffer.alloc(0), Buffer.from(joined.subarray(4))], fromAmqp1(joined), "with empty pieces");
  });
});
