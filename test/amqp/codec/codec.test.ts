// The generated codec: every method round-trips, bits pack as the spec says, properties and
// content frames encode exactly, frames split anywhere reassemble, and malformed input only
// ever raises CodecError.
import { writeBody } from "../../../src/amqp/codec/body-frames.js";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { CodecError } from "../../../src/amqp/codec/codec-error.js";
import { Decimal, type FieldTable } from "../../../src/broker/values/field-value.js";
import { decodeTable, decodeTableContents } from "../../../src/amqp/codec/field-table.js";
import { FrameReader, nextFrame, FrameError } from "../../../src/amqp/codec/frame-reader.js";
import { OutputBuffer } from "../../../src/amqp/codec/output-buffer.js";
import {
  decodeBasicProperties,
  decodeContentHeader,
  type ContentHeader,
  decodeMethod,
  encodeBasicProperties,
  encodeMethod,
  encodeQueueDeclare,
  MethodId,
  METHOD_NAMES,
  writeContentHeader,
  type BasicProperties,
  type Method,
} from "../../../src/amqp/codec/generated.js";

const specUrl = new URL("../../../../spec/amqp-rabbitmq-0.9.1.json", import.meta.url);
const spec = JSON.parse(readFileSync(specUrl, "utf8")) as {
  domains: Array<[string, string]>;
  classes: Array<{ name: string; id: number; methods: Array<{ name: string; id: number; arguments: Array<{ name: string; type?: string; domain?: string }> }> }>;
};
const domains = new Map(spec.domains);
const camel = (s: string): string => s.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** A non-default value of each AMQP type, varied by index so fields are distinguishable. */
function sample(type: string, i: number): unknown {
  switch (type) {
    case "bit": return i % 2 === 0;
    case "octet": return 200 - i;
    case "short": return 60000 - i;
    case "long": return 4_000_000_000 - i;
    case "longlong": return 2 ** 40 + i;
    case "timestamp": return 1_700_000_000 + i;
    case "shortstr": return `s${i}-é`;
    case "longstr": return Buffer.from(`long string ${i}\u0000binary`);
    case "table": return { k: i, s: "v", nested: { b: true } };
    default: throw new Error(type);
  }
}

function frameOf(out: OutputBuffer): { type: number; channel: number; payload: Buffer } {
  const r = new FrameReader(1 << 20);
  r.push(out.take());
  const f = nextFrame(r);
  assert.ok(f);
  return f;
}

/** A 3,000-byte body frame then a basic.ack, both on channel 4: the body and the frames' bytes. */
function bodyThenAck(): { body: Buffer; bytes: Buffer } {
  const out = new OutputBuffer();
  const body = Buffer.alloc(3000);
  for (let i = 0; i < body.length; i++) body[i] = i % 251;
  out.writeBodyFrame(4, body);
  encodeMethod(out, 4, { id: MethodId.BasicAck, name: "basic.ack", args: { deliveryTag: 9, multiple: false } });
  return { body, bytes: out.take() };
}

describe("generated codec", () => {
  it("round-trips every method of the spec with every field set", () => {
    let n = 0;
    for (const cl of spec.classes) {
      for (const m of cl.methods) {
        const args: Record<string, unknown> = {};
        m.arguments.forEach((a, i) => (args[camel(a.name)] = sample(a.type ?? domains.get(a.domain!)!, i)));
        const id = (cl.id << 16) | m.id;
        const method = { id, name: `${cl.name}.${m.name}`, args } as unknown as Method;
        const out = new OutputBuffer(16);
        encodeMethod(out, 7, method);
        const f = frameOf(out);
        assert.equal(f.type, 1);
        assert.equal(f.channel, 7);
        const back = decodeMethod(f.payload);
        assert.equal(back.id, id);
        assert.equal(back.name, METHOD_NAMES.get(id));
        assert.deepEqual(back.args, args, method.name);
        n++;
      }
    }
    assert.equal(n, 66);
  });

  it("packs consecutive bits into one octet, low bit first", () => {
    const out = new OutputBuffer();
    encodeQueueDeclare(out, 1, { ticket: 0, queue: "q", passive: false, durable: true, exclusive: false, autoDelete: true, nowait: true, arguments: {} });
    const f = frameOf(out);
    // class, method, ticket(2), shortstr "q"(2), then the bits octet: durable=2 | autoDelete=8 | nowait=16
    assert.equal(f.payload[4 + 2 + 2], 2 | 8 | 16);
  });

  it("encodes every property and none, and re-reads them", () => {
    const full: BasicProperties = {
      contentType: "application/json",
      contentEncoding: "gzip",
      headers: { a: 1, b: "x", c: [1, "two", false], d: new Decimal(2, 12345), e: new Date(1_700_000_000_000), f: null, g: Buffer.from([1, 2]) },
      deliveryMode: 2,
      priority: 9,
      correlationId: "c",
      replyTo: "r",
      expiration: "60000",
      messageId: "m",
      timestamp: 1_700_000_000,
      type: "t",
      userId: "u",
      appId: "a",
      clusterId: "cl",
    };
    assert.deepEqual(decodeBasicProperties(encodeBasicProperties(full)), full);
    assert.deepEqual(decodeBasicProperties(encodeBasicProperties({})), {});
    assert.deepEqual(encodeBasicProperties({}), Buffer.from([0, 0]));
  });

  it("writes a content header that carries the raw properties and splits bodies at frame_max", () => {
    const raw = encodeBasicProperties({ contentType: "text/plain" });
    const out = new OutputBuffer(8);
    writeContentHeader(out, 3, 60, 10_000, raw);
    writeBody(out, 3, Buffer.alloc(10_000, 7), 4096);
    const r = new FrameReader(4096);
    r.push(out.take());
    const header = nextFrame(r)!;
    const h: ContentHeader = { classId: 0, bodySize: 0, propertiesStart: 0 };
    decodeContentHeader(h, header.payload);
    assert.deepEqual([h.classId, h.bodySize], [60, 10_000]);
    assert.deepEqual(header.payload.subarray(h.propertiesStart), raw);
    const sizes: number[] = [];
    for (let f = nextFrame(r); f; f = nextFrame(r)) sizes.push(f.payload.length);
    assert.deepEqual(sizes, [4088, 4088, 1824]);
  });

  it("decodes every RabbitMQ field-table tag", () => {
    const parts: Buffer[] = [];
    const entry = (key: string, tag: string, value: Buffer): void => {
      parts.push(Buffer.from([key.length]), Buffer.from(key), Buffer.from(tag), value);
    };
    const i32 = (v: number): Buffer => { const b = Buffer.alloc(4); b.writeInt32BE(v); return b; };
    entry("t", "t", Buffer.from([1]));
    entry("b", "b", Buffer.from([0xff]));
    entry("B", "B", Buffer.from([0xff]));
    entry("s", "s", Buffer.from([0xff, 0xfe]));
    entry("u", "u", Buffer.from([0xff, 0xfe]));
    entry("I", "I", i32(-5));
    entry("i", "i", Buffer.from([0xff, 0xff, 0xff, 0xff]));
    entry("l", "l", Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe]));
    entry("f", "f", Buffer.from([0x3f, 0xc0, 0, 0]));
    entry("d", "d", Buffer.from([0x3f, 0xf8, 0, 0, 0, 0, 0, 0]));
    entry("D", "D", Buffer.concat([Buffer.from([2]), i32(314)]));
    entry("S", "S", Buffer.concat([i32(2), Buffer.from("hi")]));
    entry("A", "A", Buffer.concat([i32(5), Buffer.from("I"), i32(1)]));
    entry("T", "T", Buffer.from([0, 0, 0, 0, 0x65, 0x53, 0xf1, 0x00]));
    entry("F", "F", Buffer.concat([i32(0)]));
    entry("V", "V", Buffer.alloc(0));
    entry("x", "x", Buffer.concat([i32(2), Buffer.from([9, 8])]));
    const body = Buffer.concat(parts);
    const [t] = decodeTable(Buffer.concat([i32(body.length), body]), 0);
    const expected: FieldTable = {
      t: true, b: -1, B: 255, s: -2, u: 65534, I: -5, i: 4294967295, l: -2, f: 1.5, d: 1.5,
      D: new Decimal(2, 314), S: "hi", A: [1], T: new Date(0x6553f100 * 1000), F: {}, V: null, x: Buffer.from([9, 8]),
    };
    assert.deepEqual(t, expected);
    assert.deepEqual(decodeTableContents(body), expected);
  });

  it("reassembles frames split at every byte boundary, and many frames in one chunk", () => {
    const out = new OutputBuffer();
    for (let i = 0; i < 5; i++) encodeMethod(out, i + 1, { id: MethodId.BasicAck, name: "basic.ack", args: { deliveryTag: i, multiple: i % 2 === 0 } });
    const bytes = out.take();
    for (let cut = 1; cut < bytes.length; cut++) {
      const r = new FrameReader(4096);
      const got: number[] = [];
      r.push(bytes.subarray(0, cut));
      for (let f = nextFrame(r); f; f = nextFrame(r)) got.push(f.channel);
      r.push(bytes.subarray(cut));
      for (let f = nextFrame(r); f; f = nextFrame(r)) got.push(f.channel);
      assert.deepEqual(got, [1, 2, 3, 4, 5], `cut at ${cut}`);
    }
    const oneByOne = new FrameReader(4096);
    const got: number[] = [];
    for (const b of bytes) {
      oneByOne.push(Buffer.from([b]));
      for (let f = nextFrame(oneByOne); f; f = nextFrame(oneByOne)) got.push(f.channel);
    }
    assert.deepEqual(got, [1, 2, 3, 4, 5], "one byte per chunk");
  });

  it("gives a body frame that spans reads as pieces of those reads, never copied", () => {
    const { body, bytes } = bodyThenAck();
    // Every way of cutting the bytes into three reads.
    for (let a = 1; a < 3010; a += 7) {
      for (const b of [a + 1, a + 500, 3008, 3009]) {
        if (b <= a || b >= bytes.length) continue;
        const reads = [Buffer.from(bytes.subarray(0, a)), Buffer.from(bytes.subarray(a, b)), Buffer.from(bytes.subarray(b))];
        const r = new FrameReader(8192);
        const payload: Buffer[] = [];
        const channels: number[] = [];
        for (const chunk of reads) {
          r.push(chunk);
          while (r.next()) {
            channels.push(r.channel);
            if (r.type !== 3) continue;
            const pieces = r.payloadPieces ?? [r.payloadBuf.subarray(r.payloadStart, r.payloadEnd)];
            for (const piece of pieces) {
              assert.ok(piece.length > 0, "no empty piece");
              // A piece is a view of one of the reads (or the joined header leftover), not a copy.
              assert.ok(reads.some((x) => x.buffer === piece.buffer) || piece.length < 4096, `piece of ${piece.length} bytes was copied`);
              payload.push(piece);
            }
          }
        }
        assert.deepEqual(channels, [4, 4], `cuts ${a}/${b}`);
        assert.ok(Buffer.concat(payload).equals(body), `cuts ${a}/${b}`);
      }
    }
    const bad = Buffer.from(bytes.subarray(0, 3008));
    bad[3007] = 0;
    const r = new FrameReader(8192);
    r.push(bad.subarray(0, 100));
    assert.equal(r.next(), false);
    r.push(bad.subarray(100));
    assert.throws(() => r.next(), /invalid frame end/);
  });

  it("says which reads it still holds bytes of: poisoning the others loses nothing", () => {
    // The pooled read slabs (src/listeners/slab-pool.ts) are reused once the reader holds no
    // uncopied bytes of them: here every read it lets go is overwritten at once.
    const { body, bytes } = bodyThenAck();
    for (let a = 1; a < bytes.length - 1; a += 3) {
      for (const b of [a + 1, a + 5, a + 700, bytes.length - 1]) {
        if (b <= a || b >= bytes.length) continue;
        const reads = [Buffer.from(bytes.subarray(0, a)), Buffer.from(bytes.subarray(a, b)), Buffer.from(bytes.subarray(b))];
        const r = new FrameReader(8192);
        const payload: Buffer[] = [];
        let acks = 0;
        const live = new Set<Buffer>();
        for (const chunk of reads) {
          r.push(chunk);
          live.add(chunk);
          while (r.next()) {
            if (r.type === 3) {
              const pieces = r.payloadPieces ?? [r.payloadBuf.subarray(r.payloadStart, r.payloadEnd)];
              for (const piece of pieces) payload.push(Buffer.from(piece)); // the body takes its own hold (a lease)
            } else acks++;
          }
          for (const x of live) {
            if (r.holdsBytesOf(x.buffer)) continue;
            x.fill(0xdb);
            live.delete(x);
          }
        }
        assert.equal(acks, 1, `cuts ${a}/${b}`);
        assert.ok(Buffer.concat(payload).equals(body), `cuts ${a}/${b}`);
      }
    }
  });

  it("refuses oversized frames and bad frame ends with FrameError", () => {
    const r = new FrameReader(4096);
    const big = Buffer.alloc(7);
    big.writeUInt8(1, 0);
    big.writeUInt32BE(5000, 3);
    r.push(big);
    assert.throws(() => r.next(), FrameError);
    const r2 = new FrameReader(4096);
    r2.push(Buffer.from([1, 0, 1, 0, 0, 0, 1, 0, 0]));
    assert.throws(() => r2.next(), /invalid frame end/);
  });

  it("a bounded fuzz of mutated and random payloads only raises CodecError", () => {
    const seeds: Buffer[] = [];
    for (const id of [MethodId.QueueDeclare, MethodId.BasicPublish, MethodId.ConnectionStartOk, MethodId.ExchangeBind]) {
      const out = new OutputBuffer();
      const m = { id, args: {} } as unknown as Method;
      try {
        encodeMethod(out, 1, { ...m, args: defaults(id) } as Method);
      } catch {
        continue;
      }
      seeds.push(frameOf(out).payload);
    }
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let i = 0; i < 2000; i++) {
      let p: Buffer;
      if (i % 3 === 0) {
        p = Buffer.alloc(rand(40));
        for (let k = 0; k < p.length; k++) p[k] = rand(256);
      } else {
        p = Buffer.from(seeds[i % seeds.length]!);
        for (let k = 0; k < 3; k++) if (p.length) p[rand(p.length)] = rand(256);
        if (i % 5 === 0) p = p.subarray(0, rand(p.length + 1));
      }
      try {
        decodeMethod(p);
      } catch (err) {
        assert.ok(err instanceof CodecError, `unexpected ${String(err)} for ${p.toString("hex")}`);
      }
    }
  });

  it("the committed generated.ts matches the spec (codegen:check)", () => {
    const script = new URL("../../../../scripts/generate-codec.mjs", import.meta.url).pathname;
    const out = execFileSync(process.execPath, [script, "--check"], { encoding: "utf8" });
    assert.match(out, /up to date/);
  });
});

function defaults(id: number): Record<string, unknown> {
  switch (id) {
    case MethodId.QueueDeclare:
      return { ticket: 0, queue: "q", passive: false, durable: true, exclusive: false, autoDelete: false, nowait: false, arguments: { "x-max-length": 10 } };
    case MethodId.BasicPublish:
      return { ticket: 0, exchange: "x", routingKey: "rk", mandatory: true, immediate: false };
    case MethodId.ConnectionStartOk:
      return { clientProperties: { product: "p", capabilities: { a: true } }, mechanism: "PLAIN", response: Buffer.from("\0u\0p"), locale: "en_US" };
    default:
      return { ticket: 0, destination: "d", source: "s", routingKey: "k", nowait: false, arguments: {} };
  }
}
