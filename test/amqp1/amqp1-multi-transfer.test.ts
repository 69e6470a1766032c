// AMQP 1.0 messages of several transfers (issue 44: "transfers that span frames, large messages,
// no body copies"; src/amqp1/pieced-message.ts). rhea sends 1 KB – 4 MB messages in 512-byte and
// 4 KiB frames, with every section a sender may set, through an exchange to a classic queue, a
// quorum queue and a stream; rhea reads them back byte for byte with every section, amqplib reads
// the same 0-9-1 body and headers, the stream protocol the same body. The broker's read pool
// poisons every slab it takes back (0xdb), so a body kept as slices of a slab wrongly let go
// would arrive corrupted; the slabs must all come back once nothing holds them. An aborted
// delivery of several transfers stores nothing and frees its slabs. Over TLS (reads of ~16 KiB
// records, never adjacent) 128 KiB transfers keep their payloads as the reads' slices
// (amqp1-frames.ts, Frame.more) and arrive intact. A durable message of several transfers is
// stored with its body written once (inside its original form) and read back whole after a restart.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import type { Message } from "rhea";
import { Offset } from "rabbitmq-stream-js-client";
import type { Message as StreamMessage } from "rabbitmq-stream-js-client/dist/publisher.js";
import type { ClientContext } from "../../src/broker/index.js";
import { SlabPool } from "../../src/listeners/slab-pool.js";
import { LARGE_SLAB } from "../../src/listeners/slab-reads.js";
import { FRAME_AMQP } from "../../src/amqp1/amqp1-frames.js";
import { PERFORMATIVE, performativeFrame } from "../../src/amqp1/performatives.js";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { makeTestCa } from "../helpers/test-ca.js";
import { bodyOf, close, connect, data, openSender, receive, rhea, sendAll } from "../helpers/rhea-client.js";
import { opening, raw, senderAttach, target, u } from "../helpers/amqp1-raw.js";
import { seededBytes } from "../helpers/seeded-bytes.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";
import { streamClient } from "../stream/stream-helpers.js";

const KB = 1024;
const MB = 1024 * KB;
/** Per frame size: the sizes sent (a 4 MB message in 512-byte frames would be ~9,000 transfers each way: 4 KiB frames carry it). */
const SIZES: Record<number, readonly number[]> = { 512: [KB, 5 * KB + 3, 64 * KB, MB + 17], 4096: [KB + 1, 64 * KB, MB, 4 * MB] };

/**
 * Message `seed` with every section rhea sends: header, annotations, properties, application-properties, a data body, a footer.
 * A stream keeps the whole message as RabbitMQ 4 does (stored-original.ts), footer included, which
 * rabbitmq-stream-js-client cannot decode (it throws on the footer's descriptor, format code 0x78):
 * its leg reads a stream of the same messages without one (`withFooter` false).
 */
function full(seed: number, size: number, withFooter = true): Message {
  const m = {
    durable: true,
    priority: 3,
    message_annotations: { "x-opt-seed": seed },
    message_id: `m-${seed}`,
    correlation_id: `c-${seed}`,
    content_type: "application/octet-stream",
    group_id: "g",
    application_properties: { seed, label: `label ${seed}` },
    footer: { "x-opt-end": `end ${seed}` } as Record<string, string> | undefined,
    body: data(seededBytes(size, seed)),
  };
  if (!withFooter) delete m.footer;
  return m as Message;
}

/** The message arrived as sent: its bytes, and the sections a 1.0 consumer of a classic or quorum queue gets back as sent. */
function intact(m: Message, seed: number, size: number, sections: "all" | "stream"): void {
  const got = bodyOf(m);
  assert.equal(got.length, size, `message ${seed}: length`);
  if (!got.equals(seededBytes(size, seed))) assert.fail(`message ${seed} (${size} bytes) differs from byte ${got.findIndex((b, i) => b !== seededBytes(size, seed)[i])}`);
  assert.equal(m.message_id, `m-${seed}`);
  assert.equal(m.correlation_id, `c-${seed}`);
  assert.equal(m.content_type, "application/octet-stream");
  assert.equal(m.group_id, "g");
  assert.equal(m.durable, true);
  assert.equal(m.priority, 3);
  assert.deepEqual({ ...m.application_properties }, { seed, label: `label ${seed}` });
  if (sections === "all") {
    assert.equal(m.message_annotations?.["x-opt-seed"], seed);
    assert.equal(m.footer?.["x-opt-end"], `end ${seed}`);
  }
}

const offsetFirst = { "rabbitmq:stream-offset-spec": rhea.types.wrap_described("first", "rabbitmq:stream-offset-spec") };

describe("AMQP 1.0 messages of several transfers", () => {
  let broker: TestBroker;
  let pool: SlabPool;
  let ctx: ClientContext;
  let amqpConn: amqp.ChannelModel;
  const declare = (name: string, args: Record<string, string | number> = {}, durable = false): void => {
    broker.broker.declareQueue(ctx, "/", { name, durable, autoDelete: false, exclusiveOwner: null, arguments: args }, false);
  };

  before(async () => {
    pool = new SlabPool({ slabBytes: LARGE_SLAB, maxFree: 64, poison: true });
    broker = await startTestBroker({ readSlabs: pool, streamPort: 0 });
    ctx = { permissions: broker.broker.checkerFor("guest"), owner: null };
    amqpConn = await amqp.connect(broker.amqpUrl);
    amqpConn.on("error", () => undefined);
  });
  after(async () => {
    await amqpConn.close();
    await broker.close();
  });

  for (const frame of [512, 4096]) {
    it(`${frame}-byte frames: through a classic queue, a quorum queue and a stream, read by rhea, amqplib and the stream protocol`, async () => {
      const sizes = SIZES[frame]!;
      const seeds = sizes.map((_, i) => frame * 100 + i);
      const x = `fan-${frame}`;
      const queues = { classic: `classic-${frame}`, classic091: `classic091-${frame}`, quorum: `quorum-${frame}`, quorum091: `quorum091-${frame}`, stream: `stream-${frame}`, streamNative: `stream-native-${frame}` };
      broker.broker.declareExchange(ctx, "/", { name: x, type: "fanout", durable: false, autoDelete: false, internal: false, arguments: {} }, false);
      declare(queues.classic);
      declare(queues.classic091);
      declare(queues.quorum, { "x-queue-type": "quorum" }, true);
      declare(queues.quorum091, { "x-queue-type": "quorum" }, true);
      declare(queues.stream, { "x-queue-type": "stream" }, true);
      declare(queues.streamNative, { "x-queue-type": "stream" }, true);
      for (const q of Object.values(queues)) if (q !== queues.streamNative) broker.broker.bindQueue(ctx, "/", q, x, "", {});

      const c = await connect(broker.amqpPort, { max_frame_size: frame });
      try {
        const outcomes = await sendAll(await openSender(c, `/exchanges/${x}`), sizes.map((size, i) => full(seeds[i]!, size)));
        assert.deepEqual(outcomes.map((o) => o.outcome), sizes.map(() => "accepted"));
        const native = await sendAll(await openSender(c, `/queues/${queues.streamNative}`), sizes.map((size, i) => full(seeds[i]!, size, false)));
        assert.deepEqual(native.map((o) => o.outcome), sizes.map(() => "accepted"));

        // rhea: every section as sent from the classic and quorum queues and the stream (which keeps the whole message).
        for (const [q, sections, source] of [
          [queues.classic, "all", { address: `/queues/${queues.classic}` }],
          [queues.quorum, "all", { address: `/queues/${queues.quorum}` }],
          [queues.stream, "all", { address: `/queues/${queues.stream}`, filter: offsetFirst }],
        ] as const) {
          const { receiver, messages } = receive(c, q, sizes.length, { autoaccept: true, source } as never);
          const got = await withTimeout(messages, 20_000, `${q} over AMQP 1.0`);
          got.forEach((r, i) => intact(r.message, seeds[i]!, sizes[i]!, sections));
          receiver.close();
        }

        // amqplib: the 0-9-1 body is the data section's bytes; application-properties are headers.
        const ch = await amqpConn.createChannel();
        for (const q of [queues.classic091, queues.quorum091]) {
          const got = collector<amqp.ConsumeMessage>(sizes.length);
          await ch.consume(q, (m) => m !== null && got.push(m), { noAck: true });
          const msgs = await withTimeout(got.done, 20_000, `${q} over AMQP 0-9-1`);
          msgs.forEach((m, i) => {
            assert.ok(m.content.equals(seededBytes(sizes[i]!, seeds[i]!)), `${q}: message ${seeds[i]} body`);
            assert.equal(m.properties.messageId, `m-${seeds[i]}`);
            assert.equal(m.properties.deliveryMode, 2);
            assert.equal(m.properties.headers?.["seed"], seeds[i]);
          });
        }
        await ch.close();

        // The stream protocol reads the same body (from the footer-less stream: see `full`).
        const client = await streamClient({ streamPort: broker.streamPort! });
        try {
          const got = collector<StreamMessage>(sizes.length);
          await client.declareConsumer({ stream: queues.streamNative, offset: Offset.first() }, (m) => got.push(m));
          const msgs = await withTimeout(got.done, 20_000, `${queues.streamNative} over the stream protocol`);
          msgs.forEach((m, i) => {
            assert.ok(m.content.equals(seededBytes(sizes[i]!, seeds[i]!)), `stream: message ${seeds[i]} body`);
            assert.equal(m.messageProperties?.messageId, `m-${seeds[i]}`);
            assert.equal(m.applicationProperties?.["seed"], seeds[i]);
          });
        } finally {
          await client.close();
        }
      } finally {
        await close(c);
      }
    });
  }

  it("bodies of several transfers held in a queue while their neighbours' slabs are reused (and poisoned) arrive intact; every slab comes back", async () => {
    declare("held-multi");
    declare("churn-multi");
    const base = pool.outstanding;
    const c = await connect(broker.amqpPort, { max_frame_size: 512 });
    try {
      const held = [3 * KB, 70 * KB, 300 * KB, 600 * KB + 5].map((size, i) => ({ seed: 9000 + i, size }));
      await sendAll(await openSender(c, "/queues/held-multi"), held.map((h) => full(h.seed, h.size)));
      // ~1 MB in 512-byte transfers lies across at least four 256 KiB slabs: each held under its message's lease, not joined and let go.
      assert.ok(pool.outstanding - base >= 4, `the held bodies keep their slabs (${pool.outstanding - base} out)`);
      // Other messages of several transfers through another queue, accepted: their slabs come back
      // (poisoned), and a second round reads into them again.
      const churn = Array.from({ length: 60 }, (_, i) => ({ seed: 9100 + i, size: 20 * KB + i * 997 }));
      const churnRound = async (round: readonly { seed: number; size: number }[]): Promise<void> => {
        const churned = receive(c, "/queues/churn-multi", round.length, { autoaccept: true });
        await sendAll(await openSender(c, "/queues/churn-multi"), round.map((h) => full(h.seed, h.size)));
        (await churned.messages).forEach((r, i) => intact(r.message, round[i]!.seed, round[i]!.size, "all"));
        churned.receiver.close();
      };
      await churnRound(churn.slice(0, 30));
      await eventually(() => pool.freeCount > 0, 5000, "the first round's slabs back in the pool");
      const reusedBefore = pool.reused;
      await churnRound(churn.slice(30));
      assert.ok(pool.reused > reusedBefore, "the second round reused slabs");
      const { receiver, messages } = receive(c, "/queues/held-multi", held.length);
      const got = await messages;
      got.forEach((r, i) => intact(r.message, held[i]!.seed, held[i]!.size, "all"));
      for (const r of got) r.delivery.accept();
      receiver.close();
    } finally {
      await close(c);
    }
    await eventually(() => pool.outstanding <= base, 5000, `every slab these bodies took back in the pool (${pool.outstanding} out, ${base} before)`);
  });

  it("an aborted delivery of several transfers stores nothing and frees its slabs; the link goes on", async () => {
    declare("aborted-multi");
    const base = pool.outstanding;
    const c = raw(broker.amqpPort);
    // An unsettled-mode sender (snd-settle-mode mixed): transfers carry their own settled flag.
    const transfer = (id: number, fields: { more?: boolean; aborted?: boolean; first?: boolean }, payload: Buffer): Buffer => {
      const head = fields.first === false
        ? [u(0), { type: "null" as const }, { type: "null" as const }, { type: "null" as const }, { type: "boolean" as const, value: true }, { type: "boolean" as const, value: fields.more ?? false }, { type: "null" as const }, { type: "null" as const }, { type: "null" as const }, { type: "boolean" as const, value: fields.aborted ?? false }]
        : [u(0), u(id), { type: "binary" as const, value: Buffer.from([id]) }, u(0), { type: "boolean" as const, value: true }, { type: "boolean" as const, value: fields.more ?? false }];
      const f = Buffer.concat([performativeFrame(FRAME_AMQP, 0, PERFORMATIVE.transfer, head), payload]);
      f.writeUInt32BE(f.length, 0);
      return f;
    };
    const section = (bytes: Buffer): Buffer => {
      const p = Buffer.from([0x00, 0x53, 0x75, 0xb0, 0, 0, 0, 0]);
      p.writeUInt32BE(bytes.length, 4);
      return Buffer.concat([p, bytes]);
    };
    const aborted = section(seededBytes(3000, 1));
    const kept = section(seededBytes(3000, 2));
    c.socket.write(Buffer.concat([...opening(), senderAttach("aborter", target("/queues/aborted-multi"))]));
    await eventually(() => c.received().includes("/queues/aborted-multi"), 5000, "the attach answered");
    c.socket.write(
      Buffer.concat([
        transfer(0, { more: true }, aborted.subarray(0, 1000)),
        transfer(0, { more: true, first: false }, aborted.subarray(1000, 2000)),
        transfer(0, { aborted: true, first: false }, Buffer.alloc(0)),
        transfer(1, { more: true }, kept.subarray(0, 1500)),
        transfer(1, { first: false }, kept.subarray(1500)),
      ]),
    );
    const q = () => broker.broker.vhost("/").queues.get("aborted-multi")!;
    await eventually(() => q().messageCount === 1, 5000, "the complete delivery stored");
    const rc = await connect(broker.amqpPort);
    try {
      const { messages } = receive(rc, "/queues/aborted-multi", 1, { autoaccept: true });
      const [got] = await messages;
      assert.ok(bodyOf(got!.message).equals(seededBytes(3000, 2)), "the delivery after the aborted one, intact");
      assert.equal(q().messageCount, 0);
    } finally {
      c.socket.destroy();
      await close(rc);
    }
    await eventually(() => pool.outstanding <= base, 5000, "the aborted delivery's slabs back in the pool");
  });
});

describe("AMQP 1.0 messages of several transfers over TLS", () => {
  const ca = makeTestCa();
  let b: TestBroker;

  before(async () => {
    b = await startTestBroker({ amqpsPort: 0, tlsCert: ca.serverCert, tlsKey: ca.serverKey, tlsCa: ca.caCert });
    b.broker.declareQueue({ permissions: b.broker.checkerFor("guest"), owner: null }, "/", { name: "over-tls", durable: false, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
  });
  after(async () => {
    await b?.close();
    rmSync(ca.dir, { recursive: true, force: true });
  });

  it("128 KiB transfers read from TLS records arrive intact, every section as sent", async () => {
    const c = await connect(b.amqpsPort!, { transport: "tls", ca: readFileSync(ca.caCert), servername: "localhost", max_frame_size: 131072 } as never);
    try {
      const sizes = [100 * KB, MB + 5, 3 * MB];
      const seeds = sizes.map((_, i) => 500 + i);
      const { messages } = receive(c, "/queues/over-tls", sizes.length, { autoaccept: true });
      assert.deepEqual(
        (await sendAll(await openSender(c, "/queues/over-tls"), sizes.map((size, i) => full(seeds[i]!, size)))).map((o) => o.outcome),
        sizes.map(() => "accepted"),
      );
      (await withTimeout(messages, 20_000, "the messages over TLS")).forEach((r, i) => intact(r.message, seeds[i]!, sizes[i]!, "all"));
    } finally {
      await close(c);
    }
  });
});

describe("AMQP 1.0 messages of several transfers across a restart", () => {
  let dataDir: string;
  let b: TestBroker | null = null;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), "coney-amqp1-multi-"));
  });
  after(async () => {
    await b?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("a durable message of several transfers comes back after a restart: to 1.0 with every section, to 0-9-1 with its body", async () => {
    b = await startTestBroker({ dataDir });
    const ctx = { permissions: b.broker.checkerFor("guest"), owner: null };
    for (const name of ["restart-10", "restart-091"]) b.broker.declareQueue(ctx, "/", { name, durable: true, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
    const sizes = [200 * KB + 1, MB];
    const c = await connect(b.amqpPort, { max_frame_size: 4096 });
    for (const q of ["restart-10", "restart-091"]) {
      assert.deepEqual((await sendAll(await openSender(c, `/queues/${q}`), sizes.map((size, i) => full(700 + i, size)))).map((o) => o.outcome), ["accepted", "accepted"]);
    }
    await close(c);
    await b.close();
    b = await startTestBroker({ dataDir });
    const c2 = await connect(b.amqpPort, { max_frame_size: 4096 });
    try {
      const { messages } = receive(c2, "/queues/restart-10", sizes.length, { autoaccept: true });
      (await messages).forEach((r, i) => intact(r.message, 700 + i, sizes[i]!, "all"));
    } finally {
      await close(c2);
    }
    const conn = await amqp.connect(b.amqpUrl);
    conn.on("error", () => undefined);
    try {
      const ch = await conn.createChannel();
      const got = collector<amqp.ConsumeMessage>(sizes.length);
      await ch.consume("restart-091", (m) => m !== null && got.push(m), { noAck: true });
      (await withTimeout(got.done, 10_000, "restart-091 over AMQP 0-9-1")).forEach((m, i) => {
        assert.ok(m.content.equals(seededBytes(sizes[i]!, 700 + i)), `message ${700 + i} body after the restart`);
        assert.equal(m.properties.headers?.["seed"], 700 + i);
      });
    } finally {
      await conn.close();
    }
  });
});
