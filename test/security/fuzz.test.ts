// Bounded fuzzing (seeded, a few seconds, 127.0.0.1 only): random and mutated AMQP frames to the
// listener, random JSON bodies to every PUT/POST endpoint. The broker must stay up, answer with
// the protocol's errors (never a 5xx), keep serving a well-behaved client, and leave every
// definition and message that existed before untouched.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { OutputBuffer } from "../../src/amqp/codec/output-buffer.js";
import {
  encodeBasicPublish,
  encodeChannelOpen,
  encodeConnectionOpen,
  encodeConnectionStartOk,
  encodeConnectionTuneOk,
  encodeQueueDeclare,
} from "../../src/amqp/codec/generated.js";

const GUEST = `Basic ${Buffer.from("guest:guest").toString("base64")}`;
const SEED = Number(process.env["CONEY_FUZZ_SEED"] ?? Date.now() % 1_000_000);
const FUZZ_MS = 2000;

/** mulberry32: a small seeded generator, so a failing run can be replayed with CONEY_FUZZ_SEED. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function frame(type: number, channel: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(7);
  head.writeUInt8(type, 0);
  head.writeUInt16BE(channel, 1);
  head.writeUInt32BE(payload.length, 3);
  return Buffer.concat([head, payload, Buffer.from([0xce])]);
}

/** A complete, valid session: handshake, channel, queue.declare, one published message. */
function validSession(n: number): Buffer {
  const out = new OutputBuffer();
  encodeConnectionStartOk(out, 0, { clientProperties: {}, mechanism: "PLAIN", response: Buffer.from("\0guest\0guest"), locale: "en_US" });
  encodeConnectionTuneOk(out, 0, { channelMax: 16, frameMax: 131072, heartbeat: 0 });
  encodeConnectionOpen(out, 0, { virtualHost: "/", capabilities: "", insist: false });
  encodeChannelOpen(out, 1, { outOfBand: "" });
  encodeQueueDeclare(out, 1, { ticket: 0, queue: `fuzz-q${n % 4}`, passive: false, durable: false, exclusive: false, autoDelete: false, nowait: false, arguments: {} });
  encodeBasicPublish(out, 1, { ticket: 0, exchange: "", routingKey: `fuzz-q${n % 4}`, mandatory: false, immediate: false });
  const header = Buffer.alloc(14);
  header.writeUInt16BE(60, 0);
  header.writeBigUInt64BE(5n, 4);
  return Buffer.concat([Buffer.from("AMQP\x00\x00\x09\x01", "latin1"), out.take(), frame(2, 1, header), frame(3, 1, Buffer.from("hello"))]);
}

function mutate(r: () => number, valid: Buffer): Buffer {
  const b = Buffer.from(valid);
  const roll = r();
  if (roll < 0.15) return Buffer.concat([b.subarray(0, 8), Buffer.from(Array.from({ length: Math.floor(r() * 300) }, () => Math.floor(r() * 256)))]);
  if (roll < 0.3) {
    const type = [1, 2, 3, 8, Math.floor(r() * 256)][Math.floor(r() * 5)]!;
    const body = Buffer.from(Array.from({ length: Math.floor(r() * 64) }, () => Math.floor(r() * 256)));
    return Buffer.concat([b.subarray(0, 8), frame(type, Math.floor(r() * 65536), body)]);
  }
  const flips = 1 + Math.floor(r() * 4);
  for (let i = 0; i < flips; i++) b[8 + Math.floor(r() * (b.length - 8))] = Math.floor(r() * 256);
  return roll < 0.5 ? b.subarray(0, 8 + Math.floor(r() * (b.length - 8))) : b;
}

/** Sends bytes and waits until the broker closes the socket or goes quiet. */
function sendAndWait(port: number, bytes: Buffer): Promise<void> {
  return new Promise((resolve) => {
    const s = connect(port, "127.0.0.1");
    const done = (): void => {
      s.destroy();
      resolve();
    };
    s.on("error", done);
    s.on("close", done);
    s.on("connect", () => s.write(bytes));
    setTimeout(done, 150);
  });
}

const NAMES = ["", "fuzz-a", "fuzz-b", "amq.fuzz", ".*", "^(a+)+$", "(", "x".repeat(300), "ü/%2F", "fuzz-q0"];
const KEYS = ["password", "password_hash", "hashing_algorithm", "tags", "configure", "write", "read", "durable", "auto_delete", "internal", "type", "arguments",
  "routing_key", "payload", "payload_encoding", "properties", "count", "ackmode", "encoding", "truncate", "pattern", "definition", "priority", "apply-to",
  "vhosts", "users", "queues", "exchanges", "bindings", "permissions", "policies", "name", "vhost", "source", "destination", "destination_type",
  "x-message-ttl", "x-max-length", "default_queue_type", "description", "tracing", "rabbit_version"];

function randomJson(r: () => number, depth = 0): unknown {
  const pick = Math.floor(r() * (depth > 2 ? 5 : 7));
  switch (pick) {
    case 0: return null;
    case 1: return r() < 0.5;
    case 2: return [0, -1, 1.5, 2 ** 53, -(2 ** 31), 1e308][Math.floor(r() * 6)];
    case 3:
    case 4: return NAMES[Math.floor(r() * NAMES.length)];
    case 5: return Array.from({ length: Math.floor(r() * 4) }, () => randomJson(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(r() * 6); i > 0; i--) o[r() < 0.85 ? KEYS[Math.floor(r() * KEYS.length)]! : NAMES[Math.floor(r() * NAMES.length)]!] = randomJson(r, depth + 1);
      return o;
    }
  }
}

const ENDPOINTS: Array<["PUT" | "POST", string]> = [
  ["PUT", "/api/vhosts/fuzz-v"], ["PUT", "/api/users/fuzz-u"], ["PUT", "/api/permissions/%2F/fuzz-u"], ["PUT", "/api/queues/%2F/fuzz-q"],
  ["PUT", "/api/exchanges/%2F/fuzz-x"], ["POST", "/api/bindings/%2F/e/fuzz-x/q/fuzz-q"], ["POST", "/api/bindings/%2F/e/amq.direct/e/fuzz-x"],
  ["POST", "/api/queues/%2F/fuzz-q/get"], ["POST", "/api/exchanges/%2F/fuzz-x/publish"], ["POST", "/api/definitions"], ["POST", "/api/definitions/%2F"],
  ["PUT", "/api/policies/%2F/fuzz-p"],
];

describe("fuzzing", () => {
  let broker: TestBroker;
  let before_: Record<string, unknown[]>;
  const api = async (method: string, path: string, body?: string) => {
    const res = await fetch(`${broker.httpUrl}${path}`, { method, headers: { authorization: GUEST, "content-type": "application/json" }, ...(body === undefined ? {} : { body }) });
    const text = await res.text();
    return { status: res.status, text };
  };
  const definitions = async (): Promise<Record<string, unknown[]>> => JSON.parse((await api("GET", "/api/definitions")).text) as Record<string, unknown[]>;

  before(async () => {
    broker = await startTestBroker();
    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createChannel();
    await ch.assertQueue("keep", { durable: true });
    await ch.assertExchange("keep-x", "topic", { durable: true });
    await ch.bindQueue("keep", "keep-x", "k.#");
    for (let i = 0; i < 3; i++) ch.publish("keep-x", "k.1", Buffer.from(`m${i}`));
    await ch.checkQueue("keep");
    await conn.close();
    before_ = await definitions();
  });
  after(async () => {
    await broker.close();
  });

  async function assertNothingChanged(): Promise<void> {
    const now = await definitions();
    for (const [kind, items] of Object.entries(before_)) {
      if (!Array.isArray(items)) continue;
      const present = new Set((now[kind] ?? []).map((x) => JSON.stringify(x)));
      for (const item of items) assert.ok(present.has(JSON.stringify(item)), `seed ${SEED}: ${kind} ${JSON.stringify(item)} changed or vanished`);
    }
    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createChannel();
    assert.equal((await ch.checkQueue("keep")).messageCount, 3, `seed ${SEED}: messages of an untouched queue changed`);
    await conn.close();
  }

  it(`survives random and mutated AMQP frames while another client keeps working (seed ${SEED})`, async () => {
    const r = rng(SEED);
    const good = await amqp.connect(broker.amqpUrl);
    const ch = await good.createChannel();
    await ch.assertQueue("witness", { exclusive: true });
    const valid = validSession(0);
    const deadline = Date.now() + FUZZ_MS;
    let sent = 0;
    while (Date.now() < deadline) {
      await Promise.all(Array.from({ length: 4 }, (_, i) => sendAndWait(broker.amqpPort, mutate(r, i === 0 && r() < 0.1 ? validSession(sent) : valid))));
      sent += 4;
      ch.sendToQueue("witness", Buffer.from(String(sent)));
    }
    assert.ok(sent > 20, `only ${sent} sessions were sent`);
    const got = await ch.get("witness", { noAck: true });
    assert.ok(got, "the well-behaved client's messages still flow");
    await good.close();
    await assertNothingChanged();
  });

  it(`answers random JSON bodies on every PUT/POST endpoint with 2xx or a JSON 4xx error, never a 5xx (seed ${SEED})`, async () => {
    const r = rng(SEED + 1);
    const deadline = Date.now() + FUZZ_MS;
    let sent = 0;
    while (Date.now() < deadline) {
      const [method, path] = ENDPOINTS[sent % ENDPOINTS.length]!;
      const body = r() < 0.05 ? "{not json" : JSON.stringify(randomJson(r));
      const res = await api(method, path, body);
      assert.ok(res.status < 500, `seed ${SEED}: ${method} ${path} ${body} → ${res.status} ${res.text}`);
      if (res.status >= 400) {
        const parsed = JSON.parse(res.text) as { error?: unknown; reason?: unknown };
        // RabbitMQ's reason is text, or for a bad value its two-part term as a JSON array (["not_boolean", value]).
        const reasonOk = typeof parsed.reason === "string" || (Array.isArray(parsed.reason) && typeof parsed.reason[0] === "string");
        assert.ok(typeof parsed.error === "string" && reasonOk, `seed ${SEED}: ${method} ${path} ${body} → ${res.text}`);
      }
      sent++;
    }
    assert.ok(sent >= ENDPOINTS.length, `only ${sent} requests were sent`);
    await assertNothingChanged();
  });
});
