// The x-delayed-message exchange over a real broker: messages with x-delay arrive in due order and
// never early, others at once; confirms; messages_delayed in the API; a restart keeps persistent
// delayed messages of a durable exchange; RabbitMQ's (the plugin's) refusals.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp, { type Channel } from "amqplib";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { startTestBroker } from "../helpers/broker.js";
import { channelClosedBy } from "../helpers/channel-close.js";
import { apiClient } from "../helpers/http-client.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";

interface Arrival {
  readonly body: string;
  readonly at: number;
  /** The x-delay header as delivered. */
  readonly delay: unknown;
}

/** Consumes `queue` until `n` messages arrived, noting when each did. */
async function arrivals(ch: Channel, queue: string, n: number, ms = 15_000): Promise<Arrival[]> {
  const got = collector<Arrival>(n);
  const { consumerTag } = await ch.consume(queue, (m) => m && got.push({ body: m.content.toString(), at: Date.now(), delay: m.properties.headers?.["x-delay"] }), { noAck: true });
  const all = await withTimeout(got.done, ms, `${n} delayed messages`);
  await ch.cancel(consumerTag);
  return all;
}

describe("x-delayed-message exchange", () => {
  const fx = useBrokerWithConnection();
  let ch: Channel;
  const api = apiClient(() => fx.broker.httpUrl);
  before(async () => {
    ch = await fx.conn.createChannel();
  });

  async function delayedExchange(name: string, type = "direct", durable = false): Promise<string> {
    await ch.assertExchange(name, "x-delayed-message", { durable, arguments: { "x-delayed-type": type } });
    const q = `${name}.q`;
    await ch.assertQueue(q, { durable });
    await ch.bindQueue(q, name, "k");
    return q;
  }

  it("routes messages when due, in due order, never before publish time + x-delay", async () => {
    const q = await delayedExchange("dx-order");
    const sent: Record<string, number> = {};
    // The plugin also takes a float (truncated) or a string holding an integer.
    for (const [body, delay] of [["d600", 600], ["d200", 200], ["d400", "400"], ["d201", 201.7]] as const) {
      sent[body] = Date.now() + Math.trunc(Number(delay));
      ch.publish("dx-order", "k", Buffer.from(body), { headers: { "x-delay": delay } });
    }
    const got = await arrivals(ch, q, 4);
    assert.deepEqual(got.map((a) => a.body), ["d200", "d201", "d400", "d600"]);
    for (const a of got) assert.ok(a.at >= sent[a.body]!, `${a.body} arrived ${sent[a.body]! - a.at} ms early`);
    assert.deepEqual(got.map((a) => a.delay), [-200, -201, -400, -600], "delivered with x-delay negated, as the plugin does");
  });

  it("releases thousands of messages due at the same time, all of them, in batches", async () => {
    const q = await delayedExchange("dx-bulk");
    const sentAt = Date.now();
    for (let i = 0; i < 2500; i++) ch.publish("dx-bulk", "k", Buffer.from(String(i)), { headers: { "x-delay": 1000 } });
    assert.equal((await ch.checkQueue(q)).messageCount, 0, "none before they are due");
    await eventually(async () => (await ch.checkQueue(q)).messageCount === 2500, 15_000, "2500 released messages");
    assert.ok(Date.now() - sentAt >= 1000);
    const x = (await api("GET", "/api/exchanges/%2F/dx-bulk")).json;
    assert.equal(x.messages_delayed, 0);
    assert.equal(x.message_stats.publish_in, 2500);
    assert.equal(x.message_stats.publish_out, 2500);
  });

  it("routes a message without x-delay, or with x-delay 0 or below, at once", async () => {
    const q = await delayedExchange("dx-now", "fanout");
    ch.publish("dx-now", "any", Buffer.from("none"));
    ch.publish("dx-now", "any", Buffer.from("zero"), { headers: { "x-delay": 0 } });
    ch.publish("dx-now", "any", Buffer.from("negative"), { headers: { "x-delay": -5000 } });
    // The queue's count after a round trip on the same channel: routed by the time the declare answers.
    assert.equal((await ch.checkQueue(q)).messageCount, 3);
  });

  it("routes by x-delayed-type: a topic delayed exchange matches wildcards when the message is due", async () => {
    await ch.assertExchange("dx-topic", "x-delayed-message", { durable: false, arguments: { "x-delayed-type": "topic" } });
    const q = (await ch.assertQueue("", { exclusive: true })).queue;
    await ch.bindQueue(q, "dx-topic", "orders.*");
    ch.publish("dx-topic", "orders.eu", Buffer.from("match"), { headers: { "x-delay": 100 } });
    ch.publish("dx-topic", "invoices.eu", Buffer.from("no-match"), { headers: { "x-delay": 100 } });
    const got = await arrivals(ch, q, 1);
    assert.equal(got[0]!.body, "match");
    await eventually(async () => (await api("GET", "/api/exchanges/%2F/dx-topic")).json.messages_delayed === 0, 5000, "both released");
    assert.equal((await ch.checkQueue(q)).messageCount, 0, "the unmatched one went nowhere");
  });

  it("confirms a delayed publish once stored, and counts held messages as messages_delayed", async () => {
    await delayedExchange("dx-count", "direct", true);
    const cc = await fx.conn.createConfirmChannel();
    for (let i = 0; i < 3; i++) cc.publish("dx-count", "k", Buffer.from(`m${i}`), { persistent: true, headers: { "x-delay": 60_000 } });
    await withTimeout(cc.waitForConfirms(), 5000, "confirms of held messages");
    await cc.close();
    const r = await api("GET", "/api/exchanges/%2F/dx-count");
    assert.equal(r.status, 200);
    assert.equal(r.json.type, "x-delayed-message");
    assert.equal(r.json.messages_delayed, 3);
    assert.deepEqual(r.json.arguments, { "x-delayed-type": "direct" });
    const list = await api("GET", "/api/exchanges/%2F");
    assert.equal(list.json.find((x: { name: string }) => x.name === "dx-count").messages_delayed, 3);
    assert.equal(list.json.find((x: { name: string }) => x.name === "amq.direct").messages_delayed, undefined, "only delayed exchanges have the field");
    const queues = await api("GET", "/api/queues/%2F");
    assert.ok(!queues.json.some((x: { name: string }) => x.name.startsWith("amq.delayed")), "the internal store is not a listed queue");
    assert.equal((await ch.checkQueue("dx-count.q")).messageCount, 0, "nothing routed yet");
    // Deleting the exchange drops what it held.
    await ch.deleteExchange("dx-count");
    assert.equal((await api("GET", "/api/exchanges/%2F/dx-count")).status, 404);
    // (An in-memory broker, CONEY_TEST_STORE=memory, has no journal and so no log to release.)
    const journal = fx.broker.broker.journal as { logs: Map<string, unknown> } | null;
    assert.notEqual(journal?.logs.has("/\u0000amq.delayed.dx-count"), true, "its store log is released");
  });

  const closedWith = (action: (c: Channel) => Promise<unknown>): Promise<string> => channelClosedBy(fx.conn, action);

  it("refuses a declaration without a valid x-delayed-type as the plugin does", async () => {
    assert.match(await closedWith((c) => c.assertExchange("dx-bad", "x-delayed-message", {})), /406 \(PRECONDITION-FAILED\) with message "PRECONDITION_FAILED - Invalid argument, 'x-delayed-type' must be an existing exchange type"/);
    assert.match(await closedWith((c) => c.assertExchange("dx-self", "x-delayed-message", { arguments: { "x-delayed-type": "x-delayed-message" } })), /PRECONDITION_FAILED - Invalid argument, 'x-delayed-message' can't be used for 'x-delayed-type'/);
    const c = await amqp.connect(fx.broker.amqpUrl);
    const closed = new Promise<string>((resolve) => c.on("error", (e: Error) => resolve(e.message)));
    const bad = await c.createChannel();
    await assert.rejects(bad.assertExchange("dx-unknown", "x-delayed-message", { arguments: { "x-delayed-type": "nope" } }));
    assert.match(await withTimeout(closed, 5000, "connection close"), /503 \(COMMAND-INVALID\) with message "COMMAND_INVALID - unknown exchange type 'nope'"/);
  });
});

describe("x-delayed-message exchange across a restart", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-delayed-"));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it("keeps persistent delayed messages of a durable exchange, routes them when due after the restart, and drops transient ones", async () => {
    const first = await startTestBroker({ dataDir });
    const c1 = await amqp.connect(first.amqpUrl);
    const ch1 = await c1.createConfirmChannel();
    await ch1.assertExchange("dx-restart", "x-delayed-message", { durable: true, arguments: { "x-delayed-type": "direct" } });
    await ch1.assertQueue("dx-restart.q", { durable: true });
    await ch1.bindQueue("dx-restart.q", "dx-restart", "k");
    const dueAt: Record<string, number> = {};
    for (const [body, delay, persistent] of [["late", 2500, true], ["early", 1500, true], ["transient", 1500, false]] as const) {
      dueAt[body] = Date.now() + delay;
      ch1.publish("dx-restart", "k", Buffer.from(body), { persistent, headers: { "x-delay": delay } });
    }
    await ch1.waitForConfirms();
    await c1.close();
    await first.close();

    const second = await startTestBroker({ dataDir });
    try {
      const api = apiClient(() => second.httpUrl);
      assert.equal((await api("GET", "/api/exchanges/%2F/dx-restart")).json.messages_delayed, 2, "both persistent messages are held again");
      const c2 = await amqp.connect(second.amqpUrl);
      const ch2 = await c2.createChannel();
      const got = await arrivals(ch2, "dx-restart.q", 2);
      assert.deepEqual(got.map((a) => a.body), ["early", "late"]);
      for (const a of got) assert.ok(a.at >= dueAt[a.body]!, `${a.body} arrived ${dueAt[a.body]! - a.at} ms early`);
      assert.equal((await ch2.checkQueue("dx-restart.q")).messageCount, 0, "the transient one did not survive");
      assert.equal((await api("GET", "/api/exchanges/%2F/dx-restart")).json.messages_delayed, 0);
      await c2.close();
    } finally {
      await second.close();
    }
    // Released messages were acked in the store: a third start holds nothing.
    const third = await startTestBroker({ dataDir });
    try {
      assert.equal((await apiClient(() => third.httpUrl)("GET", "/api/exchanges/%2F/dx-restart")).json.messages_delayed, 0);
    } finally {
      await third.close();
    }
  });
});
