// MQTT 5 with mqtt.js: topic aliases both ways (the server's Topic Alias Maximum of 16 in CONNACK,
// DISCONNECT 0x94 for an alias out of range or never set; aliases to a client that announces its
// own maximum), the client's Maximum Packet Size (a delivery too large is dropped, the next one
// still comes) and Receive Maximum (at most that many QoS 1 deliveries unacknowledged, retained
// messages on subscribe included).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { generate, type IPublishPacket } from "mqtt-packet";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { rawMqtt, sleep, waitUntil, type RawMqttClient, useMqttClients } from "../helpers/mqtt-client.js";

describe("MQTT 5 topic aliases, maximum packet size and receive maximum", () => {
  let broker: TestBroker;
  let url: string;
  const mqtt = useMqttClients(() => url, { protocolVersion: 5 });
  const open5 = mqtt.open;
  const queue = (name: string) => broker.broker.vhost("/").queues.get(name);

  before(async () => {
    broker = await startTestBroker({ mqttPort: 0 });
    url = `mqtt://127.0.0.1:${broker.mqttPort}`;
  });
  after(async () => {
    await broker.close();
  });

  it("announces a Topic Alias Maximum of 16 and accepts aliases the client sets and then uses", async () => {
    const sub = await open5({ clientId: "alias-sub" });
    await sub.client.subscribeAsync("alias/#", { qos: 1 });
    const pub = await open5({ clientId: "alias-pub" });
    assert.equal(pub.connack?.properties?.topicAliasMaximum, 16);
    await pub.client.publishAsync("alias/long/topic/name", "first", { qos: 1, properties: { topicAlias: 3 } });
    await pub.client.publishAsync("", "second", { qos: 1, properties: { topicAlias: 3 } });
    await pub.client.publishAsync("alias/other", "third", { qos: 1, properties: { topicAlias: 3 } });
    await pub.client.publishAsync("", "fourth", { qos: 1, properties: { topicAlias: 3 } });
    const got = await sub.waitFor(4);
    assert.deepEqual(got.map((r) => [r.topic, r.payload.toString()]), [
      ["alias/long/topic/name", "first"],
      ["alias/long/topic/name", "second"],
      ["alias/other", "third"],
      ["alias/other", "fourth"],
    ]);
    assert.equal(pub.client.connected, true);
  });

  for (const [what, topic, alias] of [
    ["an alias above the maximum", "alias/x", 17],
    ["an alias that was never set", "", 5],
  ] as const) {
    it(`closes the connection with DISCONNECT 0x94 (topic alias invalid) on ${what}, publishing nothing`, async () => {
      const c = await open5({ clientId: `alias-bad-${alias}` });
      const disconnect = new Promise<number | undefined>((resolve) => c.client.once("disconnect", (p) => resolve(p.reasonCode)));
      const published = broker.broker.stats.publish;
      // mqtt.js refuses to send a bad alias itself: the packet is written to its socket directly.
      c.client.stream.write(generate({ cmd: "publish", topic, payload: Buffer.from("x"), qos: 0, dup: false, retain: false, properties: { topicAlias: alias } }, { protocolVersion: 5 }));
      assert.equal(await disconnect, 0x94);
      assert.equal(broker.broker.stats.publish, published);
    });
  }

  it("sends aliases to a client that announces a Topic Alias Maximum: the topic once, then the alias alone", async () => {
    const sub = await open5({ clientId: "alias-out", properties: { topicAliasMaximum: 2 } });
    const raw: IPublishPacket[] = [];
    sub.client.on("packetreceive", (p) => {
      if (p.cmd === "publish") raw.push({ ...p, properties: { ...p.properties } });
    });
    await sub.client.subscribeAsync("out/#", { qos: 0 });
    const pub = await open5({ clientId: "alias-out-pub" });
    for (const t of ["out/a", "out/a", "out/b", "out/c", "out/a", "out/c"]) await pub.client.publishAsync(t, t, { qos: 1 });
    const got = await sub.waitFor(6);
    assert.deepEqual(got.map((r) => r.topic), ["out/a", "out/a", "out/b", "out/c", "out/a", "out/c"], "mqtt.js resolves every alias");
    // Aliases 1 and 2 go to out/a and out/b; the client's maximum is then used up, so out/c goes by name.
    assert.deepEqual(raw.map((p) => [p.topic, p.properties?.topicAlias]), [
      ["out/a", 1],
      ["", 1],
      ["out/b", 2],
      ["out/c", undefined],
      ["", 1],
      ["out/c", undefined],
    ]);
  });

  it("does not send a delivery larger than the client's Maximum Packet Size, and drops it from the queue", async () => {
    const sub = await open5({ clientId: "small", properties: { maximumPacketSize: 256 } });
    await sub.client.subscribeAsync("size/t", { qos: 1 });
    const pub = await open5({ clientId: "size-pub" });
    await pub.client.publishAsync("size/t", Buffer.alloc(1000, 1), { qos: 1 });
    await pub.client.publishAsync("size/t", "small enough", { qos: 1 });
    const [r] = await sub.waitFor(1);
    assert.equal(r!.payload.toString(), "small enough");
    const q = queue("mqtt-subscription-smallqos1")!;
    await waitUntil(() => q.messageCount === 0 && q.unacked === 0);
    assert.equal(sub.received.length, 1);
    assert.equal(sub.client.connected, true);
  });

  const publishes = (c: RawMqttClient): IPublishPacket[] => c.packets.filter((p): p is IPublishPacket => p.cmd === "publish");
  const ack = (c: RawMqttClient, p: IPublishPacket): void => c.send({ cmd: "puback", messageId: p.messageId! });

  it("keeps at most Receive Maximum QoS 1 deliveries unacknowledged, then sends more as PUBACKs come", async () => {
    const sub = await rawMqtt(broker.mqttPort!, { clientId: "slow", properties: { receiveMaximum: 2 } });
    try {
      sub.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "slow/t", qos: 1 }] });
      await sub.until((ps) => ps.some((p) => p.cmd === "suback"));
      const pub = await open5({ clientId: "slow-pub" });
      for (let i = 1; i <= 5; i++) await pub.client.publishAsync("slow/t", `m${i}`, { qos: 1 });
      const q = queue("mqtt-subscription-slowqos1")!;
      await waitUntil(() => publishes(sub).length === 2 && q.unacked === 2 && q.messageCount === 3);
      await sleep(100);
      assert.equal(publishes(sub).length, 2, "no third delivery while two are unacknowledged");
      ack(sub, publishes(sub)[0]!);
      await sub.until(() => publishes(sub).length === 3);
      await sleep(50);
      assert.equal(publishes(sub).length, 3, "one PUBACK frees one slot");
      for (const p of publishes(sub).slice(1)) ack(sub, p);
      await sub.until(() => publishes(sub).length === 5);
      for (const p of publishes(sub).slice(3)) ack(sub, p);
      await waitUntil(() => q.unacked === 0 && q.messageCount === 0);
      assert.deepEqual(publishes(sub).map((p) => p.payload.toString()), ["m1", "m2", "m3", "m4", "m5"]);
    } finally {
      sub.close();
    }
  });

  it("counts retained messages sent on subscribe against Receive Maximum", async () => {
    const pub = await open5({ clientId: "ret-pub" });
    for (const room of ["a", "b", "c"]) await pub.client.publishAsync(`ret/${room}`, room, { qos: 1, retain: true });
    const sub = await rawMqtt(broker.mqttPort!, { clientId: "ret-slow", properties: { receiveMaximum: 1 } });
    try {
      sub.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "ret/+", qos: 1 }] });
      await sub.until(() => publishes(sub).length === 1);
      await sleep(100);
      assert.equal(publishes(sub).length, 1, "one retained message in flight at a time");
      for (let i = 2; i <= 3; i++) {
        ack(sub, publishes(sub)[i - 2]!);
        await sub.until(() => publishes(sub).length === i);
      }
      const got = publishes(sub);
      assert.deepEqual(got.map((p) => p.payload.toString()).sort(), ["a", "b", "c"]);
      assert.ok(got.every((p) => p.retain && p.qos === 1));
    } finally {
      sub.close();
    }
  });
});
