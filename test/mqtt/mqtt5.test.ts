// MQTT 5 with mqtt.js: properties mapped to and from AMQP as RabbitMQ maps them (user properties
// ↔ headers, content type, correlation data, response topic, message expiry ↔ per-message TTL),
// session expiry as the session queue's x-expires, the assigned client id, and the server's
// DISCONNECT with reason 0x8E when another connection takes the session over.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { connectMqtt, sleep, waitUntil, useMqttClients } from "../helpers/mqtt-client.js";

describe("MQTT 5", () => {
  let broker: TestBroker;
  let url: string;
  const mqtt = useMqttClients(() => url, { protocolVersion: 5 });
  const open5 = mqtt.open;

  before(async () => {
    broker = await startTestBroker({ mqttPort: 0 });
    url = `mqtt://127.0.0.1:${broker.mqttPort}`;
  });
  after(async () => {
    await broker.close();
  });

  it("maps user properties, content type, correlation data, response topic and message expiry onto AMQP properties", async () => {
    const conn = await amqp.connect(broker.amqpUrl);
    try {
      const ch = await conn.createChannel();
      const { queue } = await ch.assertQueue("", { exclusive: true });
      await ch.bindQueue(queue, "amq.topic", "req.#");
      const c = await open5({ clientId: "props-out" });
      await c.client.publishAsync("req/temp", "{}", {
        qos: 1,
        properties: { userProperties: { site: "north", unit: "C" }, contentType: "application/json", correlationData: Buffer.from("corr-1"), responseTopic: "resp/props-out", messageExpiryInterval: 60 },
      });
      let m: amqp.GetMessage | false = false;
      for (let i = 0; i < 100 && !m; i++) {
        m = await ch.get(queue, { noAck: true });
        if (!m) await sleep(20);
      }
      assert.ok(m);
      assert.equal(m.properties.contentType, "application/json");
      assert.equal(m.properties.correlationId, "corr-1");
      assert.equal(m.properties.expiration, "60000");
      assert.equal(m.properties.headers?.["site"], "north");
      assert.equal(m.properties.headers?.["unit"], "C");
      assert.equal(m.properties.headers?.["x-reply-to-topic"], "resp.props-out");
    } finally {
      await conn.close();
    }
  });

  it("maps AMQP properties back onto MQTT 5 properties for an MQTT 5 subscriber", async () => {
    const sub = await open5({ clientId: "props-in" });
    await sub.client.subscribeAsync("reply/+", { qos: 1 });
    const conn = await amqp.connect(broker.amqpUrl);
    try {
      const ch = await conn.createChannel();
      ch.publish("amq.topic", "reply.x", Buffer.from("answer"), {
        persistent: true,
        contentType: "text/plain",
        correlationId: "c-42",
        expiration: "30000",
        headers: { tenant: "acme", "x-reply-to-topic": "back.to.me" },
      });
      const [r] = await sub.waitFor(1);
      const p = r!.packet.properties!;
      assert.equal(p.contentType, "text/plain");
      assert.equal(p.correlationData?.toString(), "c-42");
      assert.equal(p.responseTopic, "back/to/me");
      assert.deepEqual({ ...p.userProperties }, { tenant: "acme" });
      assert.ok(p.messageExpiryInterval !== undefined && p.messageExpiryInterval <= 30 && p.messageExpiryInterval >= 29, String(p.messageExpiryInterval));
    } finally {
      await conn.close();
    }
  });

  it("message expiry is a per-message TTL: an expired message is not delivered to a returning session", async () => {
    const away = await connectMqtt(url, { protocolVersion: 5, clientId: "expiring", clean: false, properties: { sessionExpiryInterval: 300 } });
    await away.client.subscribeAsync("exp/t", { qos: 1 });
    await away.client.endAsync();
    const pub = await open5({ clientId: "exp-pub" });
    await pub.client.publishAsync("exp/t", "short", { qos: 1, properties: { messageExpiryInterval: 1 } });
    await pub.client.publishAsync("exp/t", "long", { qos: 1, properties: { messageExpiryInterval: 600 } });
    await sleep(1300);
    const back = await open5({ clientId: "expiring", clean: false, properties: { sessionExpiryInterval: 300 } });
    const [r] = await back.waitFor(1);
    assert.equal(r!.payload.toString(), "long");
    await sleep(100);
    assert.equal(back.received.length, 1);
  });

  it("session expiry interval: 0 makes the session queue exclusive, more makes it durable with that x-expires", async () => {
    const none = await open5({ clientId: "sei-0", properties: { sessionExpiryInterval: 0 } });
    await none.client.subscribeAsync("sei/t", { qos: 1 });
    const some = await open5({ clientId: "sei-90", clean: false, properties: { sessionExpiryInterval: 90 } });
    await some.client.subscribeAsync("sei/t", { qos: 1 });
    const queues = broker.broker.vhost("/").queues;
    assert.notEqual(queues.get("mqtt-subscription-sei-0qos1")?.exclusiveOwner, null);
    const durable = queues.get("mqtt-subscription-sei-90qos1")!;
    assert.equal(durable.durable, true);
    assert.equal(durable.arguments["x-expires"], 90_000);
    assert.equal(some.connack?.properties?.sessionExpiryInterval, 90);
  });

  it("a DISCONNECT with session expiry 0 ends a persistent session: its queues go", async () => {
    const c = await connectMqtt(url, { protocolVersion: 5, clientId: "sei-end", clean: false, properties: { sessionExpiryInterval: 300 } });
    await c.client.subscribeAsync("sei-end/t", { qos: 1 });
    const queues = broker.broker.vhost("/").queues;
    assert.equal(queues.get("mqtt-subscription-sei-endqos1")?.durable, true);
    await c.client.endAsync(false, { reasonCode: 0, properties: { sessionExpiryInterval: 0 } });
    await waitUntil(() => !queues.has("mqtt-subscription-sei-endqos1"));
    const again = await open5({ clientId: "sei-end", clean: false, properties: { sessionExpiryInterval: 300 } });
    assert.equal(again.connack?.sessionPresent, false);
  });

  it("a DISCONNECT that sets a session expiry after a CONNECT without one is a protocol error: the will is published", async () => {
    const conn = await amqp.connect(broker.amqpUrl);
    try {
      const ch = await conn.createChannel();
      const { queue } = await ch.assertQueue("", { exclusive: true });
      await ch.bindQueue(queue, "amq.topic", "wills.sei-zero");
      const c = await open5({ clientId: "sei-zero", properties: { sessionExpiryInterval: 0 }, will: { topic: "wills/sei-zero", payload: Buffer.from("gone"), qos: 0, retain: false } });
      await c.client.subscribeAsync("sei-zero/t", { qos: 1 });
      await c.client.endAsync(false, { reasonCode: 0, properties: { sessionExpiryInterval: 60 } });
      let m: amqp.GetMessage | false = false;
      for (let i = 0; i < 100 && !m; i++) {
        m = await ch.get(queue, { noAck: true });
        if (!m) await sleep(20);
      }
      assert.ok(m, "a normal DISCONNECT would have discarded the will");
      assert.equal(m.content.toString(), "gone");
      await waitUntil(() => !broker.broker.vhost("/").queues.has("mqtt-subscription-sei-zeroqos1"));
    } finally {
      await conn.close();
    }
  });

  it("assigns a client id when the client sends none, and advertises no maximum QoS (QoS 2 is supported)", async () => {
    const c = await open5({ clientId: "" });
    const assigned = c.connack?.properties?.assignedClientIdentifier;
    assert.ok(typeof assigned === "string" && assigned.length > 0);
    assert.equal(c.connack?.properties?.maximumQoS, undefined);
    await c.client.subscribeAsync("assigned/t", { qos: 1 });
    assert.ok(broker.broker.vhost("/").queues.has(`mqtt-subscription-${assigned}qos1`));
  });

  it("sends DISCONNECT with reason 0x8E (session taken over) to the connection a new one replaces", async () => {
    const first = await open5({ clientId: "taken" });
    const disconnect = new Promise<number | undefined>((resolve) => first.client.once("disconnect", (p) => resolve(p.reasonCode)));
    await open5({ clientId: "taken" });
    assert.equal(await disconnect, 0x8e);
    await waitUntil(() => broker.broker.connections.list().filter((c) => c.info().clientProperties["client_id"] === "taken").length === 1);
  });

  it("answers PUBACK 0x10 (no matching subscribers) for a QoS 1 message that reached no queue", async () => {
    const c = await open5({ clientId: "lonely" });
    const acks: Array<number | undefined> = [];
    c.client.on("packetreceive", (p) => {
      if (p.cmd === "puback") acks.push(p.reasonCode);
    });
    await c.client.publishAsync("nobody/listens", "x", { qos: 1 }).catch(() => {});
    await waitUntil(() => acks.length === 1);
    assert.deepEqual(acks, [0x10]);
  });
});
