// MQTT QoS 2 (exactly once) with mqtt.js and a bare client: PUBREC/PUBREL/PUBCOMP both ways,
// a resent PUBLISH before PUBREL not routed twice, the packet-identifier state kept across a
// broker restart (inbound and outbound), QoS 2 granted, wills and retained messages at QoS 2,
// AMQP consumers seeing each message once; `$` topics and Receive Maximum (0x93).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import type { IPublishPacket, Packet } from "mqtt-packet";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { rawMqtt, useMqttClients, waitUntil } from "../helpers/mqtt-client.js";

const count = (ps: Packet[], cmd: string): number => ps.filter((p) => p.cmd === cmd).length;
const publish = (topic: string, body: string, messageId: number, dup = false): IPublishPacket => ({ cmd: "publish", topic, payload: Buffer.from(body), qos: 2, messageId, dup, retain: false });

describe("MQTT QoS 2", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-mqtt-qos2-"));
  let broker: TestBroker;
  let url: string;
  const mqtt = useMqttClients(() => url);
  const start = async (): Promise<void> => {
    broker = await startTestBroker({ mqttPort: 0, dataDir });
    url = `mqtt://127.0.0.1:${broker.mqttPort}`;
  };
  before(start);
  after(async () => {
    await broker.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  for (const protocolVersion of [4, 5] as const) {
    it(`MQTT ${protocolVersion === 4 ? "3.1.1" : "5"}: QoS 2 is granted and a QoS 2 message reaches a QoS 2 subscriber once, at QoS 2, and an AMQP consumer once`, async () => {
      const topic = `x2/${protocolVersion}`;
      const sub = await mqtt.open({ clientId: `x2-sub-${protocolVersion}`, protocolVersion });
      const granted = await sub.client.subscribeAsync(topic, { qos: 2 });
      assert.equal(granted[0]?.qos, 2);
      const conn = await amqp.connect(broker.amqpUrl);
      const ch = await conn.createChannel();
      const { queue } = await ch.assertQueue("", { exclusive: true });
      await ch.bindQueue(queue, "amq.topic", `x2.${protocolVersion}`);
      const amqpGot: string[] = [];
      await ch.consume(queue, (m) => m && amqpGot.push(m.content.toString()), { noAck: true });
      const pub = await mqtt.open({ clientId: `x2-pub-${protocolVersion}`, protocolVersion });
      await pub.client.publishAsync(topic, "exactly", { qos: 2 });
      await pub.client.publishAsync(topic, "once", { qos: 2 });
      const got = await sub.waitFor(2);
      assert.deepEqual(got.map((r) => [r.payload.toString(), r.packet.qos]), [["exactly", 2], ["once", 2]]);
      await waitUntil(() => amqpGot.length === 2);
      assert.deepEqual(amqpGot, ["exactly", "once"]);
      // Both exchanges completed: nothing left awaiting PUBREC or PUBCOMP, nothing more delivered.
      const q = broker.broker.vhost("/").queues.get(`mqtt-subscription-x2-sub-${protocolVersion}qos2`)!;
      await waitUntil(() => q.messageCount === 0 && q.unacked === 0);
      assert.equal(sub.received.length, 2);
      assert.equal(amqpGot.length, 2);
      await conn.close();
    });
  }

  it("a QoS 2 subscriber gets a QoS 1 message at QoS 1 and a QoS 1 subscriber a QoS 2 message at QoS 1", async () => {
    const two = await mqtt.open({ clientId: "lower-two" });
    await two.client.subscribeAsync("lower/t", { qos: 2 });
    const one = await mqtt.open({ clientId: "lower-one" });
    await one.client.subscribeAsync("lower/t", { qos: 1 });
    const pub = await mqtt.open({ clientId: "lower-pub" });
    await pub.client.publishAsync("lower/t", "at one", { qos: 1 });
    await pub.client.publishAsync("lower/t", "at two", { qos: 2 });
    assert.deepEqual((await two.waitFor(2)).map((r) => [r.payload.toString(), r.packet.qos]), [["at one", 1], ["at two", 2]]);
    assert.deepEqual((await one.waitFor(2)).map((r) => [r.payload.toString(), r.packet.qos]), [["at one", 1], ["at two", 1]]);
  });

  it("a PUBLISH resent with DUP before PUBREL is answered PUBREC and not routed again; PUBREL gets PUBCOMP", async () => {
    const sub = await mqtt.open({ clientId: "dup-sub" });
    await sub.client.subscribeAsync("dup/t", { qos: 2 });
    const raw = await rawMqtt(broker.mqttPort!, { clientId: "dup-pub", protocolVersion: 4 });
    raw.send(publish("dup/t", "one message", 7));
    await raw.until((ps) => count(ps, "pubrec") === 1);
    raw.send(publish("dup/t", "one message", 7, true));
    await raw.until((ps) => count(ps, "pubrec") === 2);
    raw.send({ cmd: "pubrel", messageId: 7 });
    await raw.until((ps) => ps.some((p) => p.cmd === "pubcomp" && p.messageId === 7));
    // The id is free again: the same id now carries a new message.
    raw.send(publish("dup/t", "next message", 7));
    await raw.until((ps) => count(ps, "pubrec") === 3);
    raw.send({ cmd: "pubrel", messageId: 7 });
    const got = await sub.waitFor(2);
    assert.deepEqual(got.map((r) => r.payload.toString()), ["one message", "next message"]);
    await raw.until((ps) => count(ps, "pubcomp") === 2);
    assert.equal(sub.received.length, 2);
    raw.close();
  });

  it("a persistent session's QoS 2 state survives a restart: a resend after PUBREC is not routed again, PUBREL completes, a PUBREL owed is sent again", async () => {
    const sub = await rawMqtt(broker.mqttPort!, { clientId: "keep2-sub", protocolVersion: 4, clean: false });
    sub.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "keep2/t", qos: 2 }] });
    await sub.until((ps) => ps.some((p) => p.cmd === "suback"));
    const pub = await rawMqtt(broker.mqttPort!, { clientId: "keep2-pub", protocolVersion: 4, clean: false });
    pub.send(publish("keep2/t", "across a restart", 9));
    await pub.until((ps) => count(ps, "pubrec") === 1);
    // The subscriber takes the delivery and answers PUBREC; it holds back PUBCOMP.
    await sub.until((ps) => count(ps, "publish") === 1);
    const delivered = sub.packets.find((p): p is IPublishPacket => p.cmd === "publish")!;
    assert.equal(delivered.qos, 2);
    sub.send({ cmd: "pubrec", messageId: delivered.messageId! });
    await sub.until((ps) => count(ps, "pubrel") === 1);
    pub.close();
    sub.close();
    await Promise.all([pub.closed, sub.closed]);

    await broker.close();
    await start();
    const sub2 = await rawMqtt(broker.mqttPort!, { clientId: "keep2-sub", protocolVersion: 4, clean: false });
    // The PUBREL owed is sent again [MQTT-4.4.0-1], and the message is not published again.
    await sub2.until((ps) => ps.some((p) => p.cmd === "pubrel" && p.messageId === delivered.messageId));
    sub2.send({ cmd: "pubcomp", messageId: delivered.messageId! });
    const pub2 = await rawMqtt(broker.mqttPort!, { clientId: "keep2-pub", protocolVersion: 4, clean: false });
    pub2.send(publish("keep2/t", "across a restart", 9, true));
    await pub2.until((ps) => count(ps, "pubrec") === 1);
    pub2.send({ cmd: "pubrel", messageId: 9 });
    await pub2.until((ps) => count(ps, "pubcomp") === 1);
    // A fresh message after it arrives, and it is the only PUBLISH the resumed subscriber got.
    pub2.send(publish("keep2/t", "fresh", 10));
    await pub2.until((ps) => count(ps, "pubrec") === 2);
    await sub2.until((ps) => count(ps, "publish") === 1);
    assert.deepEqual(sub2.packets.filter((p): p is IPublishPacket => p.cmd === "publish").map((p) => p.payload.toString()), ["fresh"]);
    pub2.close();
    sub2.close();
  });

  it("a QoS 2 retained message and a QoS 2 will are delivered at QoS 2", async () => {
    const pub = await mqtt.open({ clientId: "ret2-pub", protocolVersion: 5, will: { topic: "will2/t", payload: Buffer.from("gone"), qos: 2, retain: false } });
    await pub.client.publishAsync("ret2/t", "kept", { qos: 2, retain: true });
    const sub = await mqtt.open({ clientId: "ret2-sub", protocolVersion: 5 });
    await sub.client.subscribeAsync("will2/t", { qos: 2 });
    await sub.client.subscribeAsync("ret2/t", { qos: 2 });
    const [retained] = await sub.waitFor(1);
    assert.deepEqual([retained!.payload.toString(), retained!.packet.qos, retained!.packet.retain], ["kept", 2, true]);
    pub.client.stream.destroy();
    const [, will] = await sub.waitFor(2);
    assert.deepEqual([will!.topic, will!.payload.toString(), will!.packet.qos], ["will2/t", "gone", 2]);
  });

  it("MQTT 3.1.1 overlapping subscriptions: one delivery, at the highest QoS granted; MQTT 5: one per session queue", async () => {
    const v3 = await mqtt.open({ clientId: "overlap3", protocolVersion: 4 });
    await v3.client.subscribeAsync({ "ov/#": { qos: 1 }, "ov/a": { qos: 2 }, "ov/+": { qos: 0 } });
    const v5 = await mqtt.open({ clientId: "overlap5", protocolVersion: 5 });
    await v5.client.subscribeAsync({ "ov/#": { qos: 1 }, "ov/a": { qos: 2 } });
    const pub = await mqtt.open({ clientId: "overlap-pub" });
    await pub.client.publishAsync("ov/a", "to a", { qos: 2 });
    await pub.client.publishAsync("ov/b", "to b", { qos: 2 });
    await pub.client.publishAsync("ov/c/d", "to c/d", { qos: 2 });
    const got = await v3.waitFor(3);
    // From different session queues: in no particular order.
    assert.deepEqual(got.map((r) => [r.topic, r.packet.qos]).sort(), [["ov/a", 2], ["ov/b", 1], ["ov/c/d", 1]]);
    const got5 = await v5.waitFor(4);
    assert.deepEqual(got5.map((r) => [r.topic, r.packet.qos]).sort(), [["ov/a", 1], ["ov/a", 2], ["ov/b", 1], ["ov/c/d", 1]]);
    // Nothing more comes: the lower queues settled what the higher one delivered.
    const v = broker.broker.vhost("/");
    await waitUntil(() => [0, 1, 2].every((q) => (v.queues.get(`mqtt-subscription-overlap3qos${q}`)?.messageCount ?? 0) === 0));
    assert.equal(v3.received.length, 3);
  });

  it("a filter starting with a wildcard does not match a topic starting with $ [MQTT-4.7.2-1]", async () => {
    const wild = await mqtt.open({ clientId: "dollar-wild" });
    await wild.client.subscribeAsync(["#", "+/info"], { qos: 1 });
    const exact = await mqtt.open({ clientId: "dollar-exact" });
    await exact.client.subscribeAsync("$SYS/#", { qos: 1 });
    const pub = await mqtt.open({ clientId: "dollar-pub" });
    await pub.client.publishAsync("$SYS/info", "system", { qos: 1 });
    await pub.client.publishAsync("plain/info", "plain", { qos: 1 });
    assert.deepEqual((await exact.waitFor(1)).map((r) => r.topic), ["$SYS/info"]);
    await wild.waitFor(1);
    await waitUntil(() => broker.broker.vhost("/").queues.get("mqtt-subscription-dollar-wildqos1")?.messageCount === 0);
    assert.ok(wild.received.every((r) => r.topic !== "$SYS/info"), wild.received.map((r) => r.topic).join());
  });

  it("MQTT 5: CONNACK advertises Receive Maximum and QoS 2; exceeding it ends the connection with 0x93", async () => {
    const raw = await rawMqtt(broker.mqttPort!, { clientId: "recvmax", protocolVersion: 5 });
    const connack = raw.packets.find((p) => p.cmd === "connack");
    assert.ok(connack && connack.cmd === "connack");
    const max = connack.properties?.receiveMaximum;
    assert.equal(typeof max, "number");
    assert.equal(connack.properties?.maximumQoS, undefined, "no Maximum QoS: QoS 2 is supported");
    // Never PUBREL: every id stays in flight.
    for (let id = 1; id <= max! + 1; id++) raw.send(publish("recvmax/t", "m", id));
    await raw.until((ps) => ps.some((p) => p.cmd === "disconnect" && p.reasonCode === 0x93), 15_000);
    await raw.closed;
  });
});
