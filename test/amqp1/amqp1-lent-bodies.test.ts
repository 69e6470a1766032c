// AMQP 1.0 over recycled read slabs (issue 44; src/amqp1/lent-payloads.ts, src/listeners/slab-pool.ts):
// a transfer's payload stays a slice of the socket's read slab under a lease, and the slab goes
// back to the pool once every holder is done. The pool here poisons each slab it takes back
// (0xdb), so a body read after its slab was wrongly released arrives corrupted. Each delivery is
// checked byte for byte; sizes cross the copy threshold (256 B), frame and slab boundaries.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Connection, Message } from "rhea";
import { AMQPClient } from "@cloudamqp/amqp-client";
import type { ClientContext } from "../../src/broker/index.js";
import { SlabPool } from "../../src/listeners/slab-pool.js";
import { LARGE_SLAB } from "../../src/listeners/slab-reads.js";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { bodyOf, close, connect, data, openSender, receive, rhea, sendAll } from "../helpers/rhea-client.js";
import { body, consumeChecked, publishMany, sizeOf } from "../helpers/leased-bodies.js";
import { eventually } from "../helpers/wait.js";

const poisoningPool = (): SlabPool => new SlabPool({ slabBytes: LARGE_SLAB, maxFree: 64, poison: true });

/** A message whose id is its seed: its size and bytes follow from it (leased-bodies.ts). */
const seeded = (seed: number): Message => ({ message_id: String(seed), body: data(body(sizeOf(seed), seed)) }) as Message;

/** Checks a received 1.0 message against its seed; returns the seed. */
function checked(m: Message): number {
  const seed = Number(m.message_id);
  const got = bodyOf(m);
  const want = body(sizeOf(seed), seed);
  assert.equal(got.length, want.length, `message ${seed}: length`);
  if (!got.equals(want)) assert.fail(`message ${seed} (${want.length} bytes) differs from byte ${got.findIndex((b, i) => b !== want[i])}`);
  return seed;
}

const range = (from: number, count: number): number[] => Array.from({ length: count }, (_, i) => from + i);

describe("AMQP 1.0 bodies lent from recycled read slabs", () => {
  let broker: TestBroker;
  let pool: SlabPool;
  let ctx: ClientContext;
  const declare = (name: string, args: Record<string, string | number> = {}): void => {
    // A stream is durable by its nature; the others need not be.
    broker.broker.declareQueue(ctx, "/", { name, durable: args["x-queue-type"] === "stream", autoDelete: false, exclusiveOwner: null, arguments: args }, false);
  };

  before(async () => {
    pool = poisoningPool();
    broker = await startTestBroker({ readSlabs: pool });
    ctx = { permissions: broker.broker.checkerFor("guest"), owner: null };
  });
  after(() => broker.close());

  it("unsettled deliveries hold their slabs; accepted ones and a closed connection's give them back", async () => {
    declare("lent-accept");
    const c = await connect(broker.amqpPort);
    const s = await openSender(c, "/queues/lent-accept");
    const seeds = range(0, 300);
    const { receiver, messages } = receive(c, "/queues/lent-accept", seeds.length);
    assert.ok((await sendAll(s, seeds.map(seeded))).every((o) => o.outcome === "accepted"));
    const got = await messages;
    assert.deepEqual(got.map((r) => checked(r.message)), seeds);
    assert.ok(pool.outstanding > 1, `the unsettled bodies hold their slabs (${pool.outstanding} out)`);
    for (const r of got) r.delivery.accept();
    receiver.close();
    await close(c);
    await eventually(() => pool.outstanding === 0, 5000, "every slab back in the pool");
  });

  it("bodies waiting in a queue read right after their neighbours' slabs were reused (and poisoned)", async () => {
    declare("lent-kept");
    declare("lent-churn");
    const c = await connect(broker.amqpPort);
    const kept = range(1000, 60);
    await sendAll(await openSender(c, "/queues/lent-kept"), kept.map(seeded));
    // Other bodies through another queue, accepted: their slabs come back, are poisoned and read into again.
    const reusedBefore = pool.reused;
    const churn = range(2000, 200);
    const { messages: churned } = receive(c, "/queues/lent-churn", churn.length, { autoaccept: true });
    await sendAll(await openSender(c, "/queues/lent-churn"), churn.map(seeded));
    assert.deepEqual((await churned).map((r) => checked(r.message)), churn);
    assert.ok(pool.reused > reusedBefore, "the churn reused slabs");
    const { messages } = receive(c, "/queues/lent-kept", kept.length, { autoaccept: true });
    assert.deepEqual((await messages).map((r) => checked(r.message)), kept);
    await close(c);
    await eventually(() => pool.outstanding === 0, 5000, "every slab back in the pool");
  });

  it("pre-settled deliveries, and released, modified and rejected (dead-lettered) ones, arrive intact", async () => {
    declare("lent-dlq");
    declare("lent-outcomes", { "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "lent-dlq" });
    declare("lent-settled");
    const c = await connect(broker.amqpPort);
    const settledSeeds = range(3000, 40);
    const pre = receive(c, "/queues/lent-settled", settledSeeds.length, { snd_settle_mode: 1 });
    await sendAll(await openSender(c, "/queues/lent-settled"), settledSeeds.map(seeded));
    assert.deepEqual((await pre.messages).map((r) => checked(r.message)), settledSeeds);
    pre.receiver.close();

    const seeds = range(4000, 40);
    await sendAll(await openSender(c, "/queues/lent-outcomes"), seeds.map(seeded));
    // Credit for exactly these: what goes back to the queue is not sent to this receiver again.
    const first = receive(c, "/queues/lent-outcomes", seeds.length, { credit_window: 0 });
    first.receiver.add_credit(seeds.length);
    const got = await first.messages;
    // The first half back to the queue (released, then modified), the second dead-lettered
    // (rejected, then undeliverable-here). Runs of one outcome: rhea joins a delivery's
    // disposition to the one before it whatever its outcome when that one starts a range.
    got.forEach((r, i) => {
      checked(r.message);
      if (i < 10) r.delivery.release();
      else if (i < 20) r.delivery.modified({ delivery_failed: true });
      else if (i < 30) r.delivery.reject({ condition: "app:no", description: "no" });
      else r.delivery.modified({ undeliverable_here: true });
    });
    // Detached after its dispositions (frames are read in order): nothing is left unsettled on it.
    first.receiver.close();
    // Poison what can be: another batch through, its slabs back in the pool.
    await sendAll(await openSender(c, "/queues/lent-settled"), range(3100, 40).map(seeded));
    const again = receive(c, "/queues/lent-settled", 40, { snd_settle_mode: 1 });
    await again.messages;
    again.receiver.close();
    const back = receive(c, "/queues/lent-outcomes", seeds.length / 2, { autoaccept: true });
    assert.deepEqual((await back.messages).map((r) => checked(r.message)).sort((a, b) => a - b), seeds.slice(0, 20));
    const dead = receive(c, "/queues/lent-dlq", seeds.length / 2, { autoaccept: true });
    assert.deepEqual((await dead.messages).map((r) => checked(r.message)).sort((a, b) => a - b), seeds.slice(20));
    await close(c);
  });

  it("AMQP 1.0 to AMQP 0-9-1 and back: each protocol's lent bodies reach the other intact", async () => {
    declare("lent-to-091");
    declare("lent-to-10");
    // A dead-lettered body of an earlier test keeps its slabs: its copy in the dead-letter queue
    // shares them uncounted, so its lease is never let go (values/body-lease.ts).
    const base = pool.outstanding;
    const c = await connect(broker.amqpPort);
    const amqp = new AMQPClient(broker.amqpUrl);
    await amqp.connect();
    try {
      const toOld = range(5000, 60);
      await sendAll(await openSender(c, "/queues/lent-to-091"), toOld.map(seeded));
      const seen = await consumeChecked(await amqp.channel(), "lent-to-091", toOld.length);
      assert.deepEqual(seen, toOld);
      const toNew = range(6000, 60);
      const { messages } = receive(c, "/queues/lent-to-10", toNew.length, { autoaccept: true });
      await publishMany(await amqp.channel(), "", "lent-to-10", 6000, toNew.length);
      assert.deepEqual((await messages).map((r) => checked(r.message)), toNew);
    } finally {
      await amqp.close();
      await close(c);
    }
    await eventually(() => pool.outstanding <= base, 5000, "every slab these bodies took back in the pool");
  });

  it("a stream keeps what it was sent (its entries do not count holds: the bodies are the collector's)", async () => {
    declare("lent-stream", { "x-queue-type": "stream" });
    const c = await connect(broker.amqpPort);
    const seeds = range(7000, 40);
    await sendAll(await openSender(c, "/queues/lent-stream"), seeds.map(seeded));
    // Churn: slabs come back and are poisoned.
    declare("lent-stream-churn");
    const churn = receive(c, "/queues/lent-stream-churn", 100, { autoaccept: true });
    await sendAll(await openSender(c, "/queues/lent-stream-churn"), range(7100, 100).map(seeded));
    await churn.messages;
    const { messages } = receive(c, "/queues/lent-stream", seeds.length, { autoaccept: true, source: { address: "/queues/lent-stream", filter: { "rabbitmq:stream-offset-spec": rhea.types.wrap_described("first", "rabbitmq:stream-offset-spec") } } } as never);
    assert.deepEqual((await messages).map((r) => checked(r.message)), seeds);
    await close(c);
  });
});

describe("AMQP 1.0 messages of many frames over recycled read slabs", () => {
  let broker: TestBroker;
  let pool: SlabPool;
  let c: Connection;

  before(async () => {
    pool = poisoningPool();
    // Small frames both ways: rhea sends in the broker's 4 KiB frames, the broker in rhea's.
    broker = await startTestBroker({ readSlabs: pool, frameMax: 4096 });
    c = await connect(broker.amqpPort, { max_frame_size: 4096 });
  });
  after(async () => {
    await close(c);
    await broker.close();
  });

  it("a 1 MiB message sent in 4 KiB transfers arrives intact, beside smaller ones, and every slab goes back", async () => {
    broker.broker.declareQueue({ permissions: broker.broker.checkerFor("guest"), owner: null }, "/", { name: "lent-big", durable: false, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
    const sizes = [1024 * 1024, 100, 5000, 1024 * 1024 + 17, 300];
    const messages = sizes.map((size, i) => ({ message_id: String(i), body: data(body(size, 9000 + i)) }) as Message);
    const { messages: got } = receive(c, "/queues/lent-big", sizes.length, { autoaccept: true });
    assert.ok((await sendAll(await openSender(c, "/queues/lent-big"), messages)).every((o) => o.outcome === "accepted"));
    const received = await got;
    received.forEach((r, i) => {
      assert.equal(r.message.message_id, String(i));
      assert.ok(bodyOf(r.message).equals(body(sizes[i]!, 9000 + i)), `message ${i} (${sizes[i]} bytes) intact`);
    });
    await eventually(() => pool.outstanding <= 1, 5000, "every slab but the sender's current one back in the pool");
  });
});
