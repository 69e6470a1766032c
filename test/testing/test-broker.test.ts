// coney/testing (issue 29): the in-memory test broker as another project's tests use it —
// started from the package's `./testing` export, driven by real clients over TCP and HTTP.
import { after, before, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import amqp from "amqplib";
import { createTestVhost, startTestBroker, type TestBroker } from "../../src/testing/index.js";

describe("coney/testing: startTestBroker", () => {
  let broker: TestBroker;
  before(async () => {
    broker = await startTestBroker();
  });
  after(() => broker.close());
  beforeEach(() => broker.reset());

  it("opens AMQP only, on a loopback ephemeral port, as guest on /", async () => {
    assert.match(broker.amqpUrl, /^amqp:\/\/guest:guest@127\.0\.0\.1:\d+\/%2F$/);
    assert.ok(broker.amqpPort > 0);
    assert.equal(broker.httpUrl, null);
    assert.equal(broker.mqttUrl, null);
    assert.equal(broker.webMqttUrl, null);
    assert.equal(broker.prometheusUrl, null);
    assert.deepEqual(broker.running.listeners().map((l) => l.protocol), ["amqp"]);
    const conn = await amqp.connect(broker.amqpUrl);
    await conn.close();
  });

  it("keeps persistent messages in memory and confirms them", async () => {
    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("durable-q", { durable: true });
    for (let i = 0; i < 3; i++) ch.sendToQueue("durable-q", Buffer.from(`m${i}`), { persistent: true, messageId: `id-${i}` });
    await ch.waitForConfirms();
    const messages = broker.queue("durable-q").messages();
    assert.deepEqual(messages.map((m) => m.body.toString()), ["m0", "m1", "m2"]);
    assert.equal(messages[0]!.properties.messageId, "id-0");
    assert.equal(messages[0]!.properties.deliveryMode, 2);
    assert.equal(messages[0]!.routingKey, "durable-q");
    assert.equal(messages[0]!.exchange, "");
    await conn.close();
  });

  it("reads a queue without consuming it: counts, redelivered flags and unacked stay as they were", async () => {
    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createChannel();
    await ch.assertQueue("probe");
    ch.sendToQueue("probe", Buffer.from("a"));
    ch.sendToQueue("probe", Buffer.from("b"));
    await broker.waitForMessages("probe", 2);
    const probe = broker.queue("probe");
    assert.equal(probe.messages().length, 2);
    assert.equal(probe.messages().length, 2, "looking twice takes nothing");
    const got = await ch.get("probe", { noAck: false });
    assert.ok(got);
    assert.equal(got.fields.redelivered, false, "inspection did not count as a delivery");
    assert.equal(probe.messageCount, 1);
    assert.equal(probe.unackedCount, 1);
    ch.nack(got, false, true);
    await broker.waitForMessages("probe", 2);
    assert.deepEqual(probe.messages().map((m) => [m.body.toString(), m.redelivered]), [["a", true], ["b", false]]);
    await ch.consume("probe", () => {});
    assert.equal(probe.consumerCount, 1);
    await conn.close();
  });

  it("waitForMessages waits for messages published later, and says what it saw when they do not come", async () => {
    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createChannel();
    await ch.assertQueue("later");
    const waiting = broker.waitForMessages("later", 2, { timeoutMs: 5000 });
    setTimeout(() => {
      ch.sendToQueue("later", Buffer.from("1"));
      ch.sendToQueue("later", Buffer.from("2"));
    }, 20);
    assert.equal((await waiting).length, 2);
    await assert.rejects(broker.waitForMessages("later", 3, { timeoutMs: 50 }), /queue 'later' in vhost '\/' has 2 ready messages, not 3, after 50 ms/);
    await assert.rejects(broker.waitForMessages("never", 1, { timeoutMs: 50 }), /queue 'never' in vhost '\/' has not been declared/);
    await conn.close();
  });

  it("reset closes connections and removes what tests made, then creates the defaults again", async () => {
    const conn = await amqp.connect(broker.amqpUrl);
    conn.on("error", () => {});
    const closed = once(conn, "close");
    const ch = await conn.createChannel();
    await ch.assertQueue("left-over");
    await ch.assertExchange("left-over-x", "topic");
    broker.running.broker.putUser("someone", { password: "pw", tags: [] });
    broker.running.broker.putVhost("elsewhere", {});
    broker.reset();
    await closed;
    const b = broker.running.broker;
    assert.deepEqual([...b.vhosts.keys()], ["/"]);
    assert.deepEqual(b.users.list().map((u) => u.name), ["guest"]);
    assert.equal(broker.queue("left-over").exists, false);
    assert.equal(b.vhosts.get("/")!.exchanges.has("left-over-x"), false);
    assert.ok(b.vhosts.get("/")!.exchanges.has("amq.topic"), "the default exchanges are back");
    const again = await amqp.connect(broker.amqpUrl);
    await again.close();
  });

  it("vhostPerTest gives each test a vhost no other test sees", async () => {
    const one = broker.vhostPerTest();
    const two = broker.vhostPerTest();
    assert.notEqual(one.name, two.name);
    const c1 = await amqp.connect(one.amqpUrl);
    const ch1 = await c1.createChannel();
    await ch1.assertQueue("same-name");
    ch1.sendToQueue("same-name", Buffer.from("in one"));
    const c2 = await amqp.connect(two.amqpUrl);
    const ch2 = await c2.createChannel();
    await ch2.assertQueue("same-name");
    await broker.waitForMessages("same-name", 1, { vhost: one.name });
    assert.equal(broker.queue("same-name", two.name).messageCount, 0);
    c1.on("error", () => {});
    const closed = once(c1, "close");
    await one.delete();
    await closed;
    assert.equal(broker.running.broker.vhosts.has(one.name), false);
    await c2.close();
  });

  it("closeConnections closes every client as an operator would (320 CONNECTION_FORCED)", async () => {
    const conn = await amqp.connect(broker.amqpUrl);
    conn.on("error", () => {});
    const closed = once(conn, "close");
    assert.equal(broker.closeConnections("maintenance"), 1);
    const [err] = (await closed) as [{ code?: number; message: string }];
    assert.equal(err.code, 320);
    assert.match(err.message, /maintenance/);
  });

  it("blockPublishers sends connection.blocked to a publisher and reads nothing more from it until unblocked", async () => {
    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createChannel();
    await ch.assertQueue("held");
    broker.blockPublishers();
    const blocked = once(conn, "blocked");
    ch.sendToQueue("held", Buffer.from("first"));
    const [reason] = (await blocked) as [string];
    assert.match(reason, /memory/);
    ch.sendToQueue("held", Buffer.from("second"));
    // The socket is not read while blocked: the second publish waits in the kernel's buffers.
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(broker.queue("held").messageCount <= 1, "nothing more read from a blocked publisher");
    const unblocked = once(conn, "unblocked");
    broker.unblockPublishers();
    await unblocked;
    const messages = await broker.waitForMessages("held", 2);
    assert.deepEqual(messages.map((m) => m.body.toString()), ["first", "second"]);
    await conn.close();
  });
});

describe("coney/testing: users, listeners and shared brokers", () => {
  it("a random user replaces guest", async () => {
    const broker = await startTestBroker({ user: "random" });
    try {
      assert.notEqual(broker.username, "guest");
      assert.ok(broker.password.length >= 12);
      await assert.rejects(amqp.connect(broker.urlFor({ username: "guest", password: "guest" })), /ACCESS_REFUSED|403/);
      const conn = await amqp.connect(broker.amqpUrl);
      await conn.close();
    } finally {
      await broker.close();
    }
  });

  it("opens the management API, Prometheus and MQTT only when asked, on loopback ephemeral ports", async () => {
    const broker = await startTestBroker({ http: true, prometheus: true, mqtt: true, webMqtt: true, vhost: "app" });
    try {
      const overview = await fetch(`${broker.httpUrl}/api/overview`, { headers: { authorization: broker.httpAuthorization } });
      assert.equal(overview.status, 200);
      const vhosts = (await (await fetch(`${broker.httpUrl}/api/vhosts`, { headers: { authorization: broker.httpAuthorization } })).json()) as Array<{ name: string }>;
      assert.deepEqual(vhosts.map((v) => v.name), ["app"]);
      assert.match(await (await fetch(broker.prometheusUrl!)).text(), /rabbitmq_build_info/);
      assert.match(broker.mqttUrl!, /^mqtt:\/\/127\.0\.0\.1:\d+$/);
      assert.match(broker.webMqttUrl!, /^ws:\/\/127\.0\.0\.1:\d+\/ws$/);
      assert.deepEqual(broker.running.listeners().map((l) => l.protocol).sort(), ["amqp", "http", "http/prometheus", "http/web-mqtt", "mqtt"]);
      assert.equal(broker.running.config.bind, "127.0.0.1", "every listener on loopback");
    } finally {
      await broker.close();
    }
  });

  it("createTestVhost isolates a test file on a broker started elsewhere (a global setup), from its address alone", async () => {
    const broker = await startTestBroker({ http: true });
    try {
      const address = JSON.parse(JSON.stringify(broker.address)) as typeof broker.address;
      const vhost = await createTestVhost(address);
      const conn = await amqp.connect(vhost.amqpUrl);
      const ch = await conn.createChannel();
      await ch.assertQueue("mine");
      ch.sendToQueue("mine", Buffer.from("x"));
      await broker.waitForMessages("mine", 1, { vhost: vhost.name });
      await conn.close();
      await vhost.delete();
      assert.equal(broker.running.broker.vhosts.has(vhost.name), false);
    } finally {
      await broker.close();
    }
  });

  it("createTestVhost says what is missing when the broker has no management API", async () => {
    const broker = await startTestBroker();
    try {
      await assert.rejects(createTestVhost(broker.address), /start the test broker with \{ http: true \}/);
    } finally {
      await broker.close();
    }
  });
});
