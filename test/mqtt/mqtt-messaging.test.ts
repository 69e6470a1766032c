// MQTT 3.1.1 and 5 with mqtt.js against a real broker: CONNECT with the broker's users, the
// vhost from "vhost:user", QoS 0/1 publish and subscribe with wildcards, MQTT ↔ AMQP through
// amq.topic, and RabbitMQ's permission rules for publishing and subscribing.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { connackCode, connectMqtt, sleep, waitUntil, useMqttClients } from "../helpers/mqtt-client.js";

describe("MQTT messaging", () => {
  let broker: TestBroker;
  let url: string;
  const mqtt = useMqttClients(() => url);
  const open = mqtt.connect;

  before(async () => {
    broker = await startTestBroker({ mqttPort: 0 });
    url = `mqtt://127.0.0.1:${broker.mqttPort}`;
    const b = broker.broker;
    b.putVhost("devices", {});
    b.putUser("device", { password: "pw", tags: [] });
    b.setPermission("device", "devices", { configure: ".*", write: ".*", read: ".*" });
    // May publish but not subscribe: no configure on its session queues.
    b.putUser("sender", { password: "pw", tags: [] });
    b.setPermission("sender", "/", { configure: "^$", write: "^amq\\.topic$", read: "^$" });
    // May do everything except write to amq.topic.
    b.putUser("reader", { password: "pw", tags: [] });
    b.setPermission("reader", "/", { configure: ".*", write: "^mqtt-subscription-.*", read: ".*" });
    // Topic permissions: may publish only under sensors.
    b.putUser("topical", { password: "pw", tags: [] });
    b.setPermission("topical", "/", { configure: ".*", write: ".*", read: ".*" });
    b.setTopicPermission("topical", "/", { exchange: "amq.topic", write: "^sensors\\.", read: ".*" });
  });
  after(async () => {
    await broker.close();
  });

  it("refuses bad credentials with 3.1.1 code 4 and MQTT 5 reason 0x86; no credentials likewise (anonymous is off)", async () => {
    assert.equal(await connackCode(url, { protocolVersion: 4, username: "guest", password: "wrong" }), 4);
    assert.equal(await connackCode(url, { protocolVersion: 5, username: "guest", password: "wrong" }), 0x86);
    assert.equal(await connackCode(url, { protocolVersion: 4 }), 4);
    assert.equal(await connackCode(url, { protocolVersion: 4, username: "nobody:guest", password: "guest" }), 4, "a vhost that does not exist");
    const attempts = broker.broker.authAttempts.list().find((a) => a.protocol === "mqtt");
    assert.ok(attempts && attempts.auth_attempts_failed >= 4, JSON.stringify(attempts));
  });

  it("refuses a user without access to the vhost with 3.1.1 code 5 and MQTT 5 reason 0x87", async () => {
    assert.equal(await connackCode(url, { protocolVersion: 4, username: "devices:guest", password: "guest" }), 5);
    assert.equal(await connackCode(url, { protocolVersion: 5, username: "devices:guest", password: "guest" }), 0x87);
  });

  it("publishes and subscribes at QoS 0 and 1 with + and # wildcards, in the vhost the user name names", async () => {
    const opts = { username: "devices:device", password: "pw" };
    const sub = await open(url, { ...opts, clientId: "wild-sub" });
    await sub.client.subscribeAsync({ "home/+/temp": { qos: 1 }, "office/#": { qos: 0 } });
    const pub = await open(url, { ...opts, clientId: "wild-pub" });
    await pub.client.publishAsync("home/kitchen/temp", "21", { qos: 1 });
    await pub.client.publishAsync("home/kitchen/humidity", "40", { qos: 1 });
    await pub.client.publishAsync("office/floor1/room2/co2", "800", { qos: 0 });
    const got = await sub.waitFor(2);
    const byTopic = new Map(got.map((r) => [r.topic, r]));
    assert.equal(byTopic.get("home/kitchen/temp")?.payload.toString(), "21");
    assert.equal(byTopic.get("home/kitchen/temp")?.packet.qos, 1);
    assert.equal(byTopic.get("office/floor1/room2/co2")?.packet.qos, 0);
    await sleep(50);
    assert.equal(sub.received.length, 2, "home/kitchen/humidity matches no subscription");
    // The session queues are the broker's own queues, bound to amq.topic with AMQP keys.
    const v = broker.broker.vhost("devices");
    const q1 = v.queues.get("mqtt-subscription-wild-subqos1");
    const q0 = v.queues.get("mqtt-subscription-wild-subqos0");
    assert.ok(q1 && q0);
    assert.deepEqual([...q1.boundFrom].map((b) => [b.source.name, b.routingKey]), [["amq.topic", "home.*.temp"]]);
    assert.deepEqual([...q0.boundFrom].map((b) => [b.source.name, b.routingKey]), [["amq.topic", "office.#"]]);
  });

  it("grants QoS 2 subscriptions, and delivers at the lower of subscription and message QoS", async () => {
    const sub = await open(url, { clientId: "qos-sub" });
    const granted = await sub.client.subscribeAsync("q/two", { qos: 2 });
    assert.equal(granted[0]?.qos, 2);
    const pub = await open(url, { clientId: "qos-pub" });
    await pub.client.publishAsync("q/two", "zero", { qos: 0 });
    await pub.client.publishAsync("q/two", "one", { qos: 1 });
    const got = await sub.waitFor(2);
    assert.deepEqual(got.map((r) => [r.payload.toString(), r.packet.qos]), [["zero", 0], ["one", 1]]);
  });

  it("unsubscribing stops deliveries", async () => {
    const sub = await open(url, { clientId: "unsub" });
    await sub.client.subscribeAsync("u/t", { qos: 1 });
    await sub.client.unsubscribeAsync("u/t");
    const pub = await open(url, { clientId: "unsub-pub" });
    await pub.client.publishAsync("u/t", "x", { qos: 1 });
    await sleep(100);
    assert.equal(sub.received.length, 0);
  });

  it("an AMQP publish to amq.topic with key a.b reaches an MQTT subscriber of a/b, and the other way", async () => {
    const sub = await open(url, { clientId: "amqp-bridge" });
    await sub.client.subscribeAsync("a/b", { qos: 1 });
    const conn = await amqp.connect(broker.amqpUrl);
    try {
      const ch = await conn.createChannel();
      ch.publish("amq.topic", "a.b", Buffer.from("from amqp"), { persistent: true });
      const [r] = await sub.waitFor(1);
      assert.equal(r!.topic, "a/b");
      assert.equal(r!.payload.toString(), "from amqp");
      assert.equal(r!.packet.qos, 1, "a persistent AMQP message is QoS 1");

      const { queue } = await ch.assertQueue("", { exclusive: true });
      await ch.bindQueue(queue, "amq.topic", "sensors.*.temp");
      await sub.client.publishAsync("sensors/s1/temp", "22.5", { qos: 1 });
      const msg = await waitForGet(ch, queue);
      assert.equal(msg.fields.routingKey, "sensors.s1.temp");
      assert.equal(msg.content.toString(), "22.5");
      assert.equal(msg.properties.deliveryMode, 2, "QoS 1 is persistent");
    } finally {
      await conn.close();
    }
  });

  it("keeps QoS 1 deliveries unacknowledged until PUBACK and redelivers them with DUP to the next session", async () => {
    const pub = await open(url, { clientId: "redeliver-pub" });
    const first = await connectMqtt(url, { clientId: "redeliver", clean: false });
    await first.client.subscribeAsync("r/x", { qos: 1 });
    // Stop the client from answering PUBACK: the message stays in flight at the broker.
    first.client.handleMessage = (_packet, _cb) => {};
    await pub.client.publishAsync("r/x", "once", { qos: 1 });
    const q = broker.broker.vhost("/").queues.get("mqtt-subscription-redeliverqos1")!;
    await waitUntil(() => q.unacked === 1);
    first.client.stream.destroy();
    await waitUntil(() => q.consumerCount === 0 && q.messageCount === 1);
    const second = await open(url, { clientId: "redeliver", clean: false });
    const [r] = await second.waitFor(1);
    assert.equal(r!.payload.toString(), "once");
    assert.equal(r!.packet.dup, true);
    await waitUntil(() => q.messageCount === 0 && q.unacked === 0);
  });

  it("publishing needs write on amq.topic: 3.1.1 connections are closed, MQTT 5 hears PUBACK 0x87", async () => {
    const c4 = await open(url, { username: "reader", password: "pw", clientId: "r4" });
    const closed = new Promise<void>((resolve) => c4.client.stream.once("close", () => resolve()));
    c4.client.publish("x/y", "no", { qos: 1 });
    await closed;
    const c5 = await open(url, { protocolVersion: 5, username: "reader", password: "pw", clientId: "r5" });
    await assert.rejects(c5.client.publishAsync("x/y", "no", { qos: 1 }), (e: unknown) => (e as { code?: number }).code === 0x87);
    assert.equal(c5.client.connected, true);
  });

  it("topic permissions apply to the routing key of a publish", async () => {
    const c5 = await open(url, { protocolVersion: 5, username: "topical", password: "pw", clientId: "t5" });
    await c5.client.publishAsync("sensors/s1", "ok", { qos: 1 });
    await assert.rejects(c5.client.publishAsync("actuators/a1", "no", { qos: 1 }), (e: unknown) => (e as { code?: number }).code === 0x87);
  });

  it("subscribing needs configure on the session queue: refused subscriptions get SUBACK 0x80", async () => {
    const c = await open(url, { username: "sender", password: "pw", clientId: "s4" });
    await assert.rejects(c.client.subscribeAsync("any/topic", { qos: 1 }), (e: unknown) => {
      assert.deepEqual((e as { packet?: { granted?: number[] } }).packet?.granted, [0x80]);
      return true;
    });
    await c.client.publishAsync("any/topic", "still connected", { qos: 1 });
  });

  it("answers PINGREQ", async () => {
    const c = await open(url, { clientId: "pinger", keepalive: 1 });
    const pong = new Promise<void>((resolve) => c.client.once("packetreceive", (p) => p.cmd === "pingresp" && resolve()));
    await pong;
    assert.equal(c.client.connected, true);
  });
});

async function waitForGet(ch: amqp.Channel, queue: string): Promise<amqp.GetMessage> {
  for (let i = 0; i < 100; i++) {
    const m = await ch.get(queue, { noAck: true });
    if (m) return m;
    await sleep(20);
  }
  throw new Error(`nothing arrived in ${queue}`);
}
