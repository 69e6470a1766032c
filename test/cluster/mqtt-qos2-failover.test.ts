// MQTT QoS 2 across a leader failover (issue 43): the sessions' QoS 2 packet-identifier state
// (mqtt-qos2-state.json) is replicated to the followers before PUBREC or PUBREL goes, so the node
// that takes over neither routes again a PUBLISH whose PUBREC was sent (the publisher's resend
// with DUP is answered PUBREC, not routed) nor sends again a delivery whose PUBREL was sent (the
// subscriber gets its PUBREL again). An AMQP consumer sees the message once.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import type { IConnectPacket, IPublishPacket, Packet } from "mqtt-packet";
import { suiteCluster, type NodeInfo } from "./cluster-fixture.js";
import { rawMqtt, type RawMqttClient } from "../helpers/mqtt-client.js";
import { eventually } from "../helpers/wait.js";

const has = (cmd: string, id: number) => (ps: Packet[]): boolean => ps.some((p) => p.cmd === cmd && p.messageId === id);
const publishes = (ps: Packet[]): IPublishPacket[] => ps.filter((p): p is IPublishPacket => p.cmd === "publish");

async function mqttTo(n: NodeInfo, connect: Partial<IConnectPacket>): Promise<RawMqttClient> {
  let client: RawMqttClient | null = null;
  // The new leader's broker binds its MQTT port once it has started.
  await eventually(async () => {
    try {
      client = await rawMqtt(n.mqttPort!, connect);
      return true;
    } catch {
      return false;
    }
  }, 30_000, `MQTT on ${n.name}`);
  return client!;
}

describe("MQTT QoS 2 across a leader failover", { timeout: 120_000 }, () => {
  const { cluster, pass } = suiteCluster(3, [], true);

  it("a resend after PUBREC is not routed again and a PUBREL owed is sent again by the new leader", async () => {
    const leader = await cluster.waitForLeader();
    const conn = await amqp.connect(cluster.url(leader));
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("fo-amqp", { durable: true });
    await ch.bindQueue("fo-amqp", "amq.topic", "fo.in");
    await conn.close();

    const session = { protocolVersion: 5, clean: false, properties: { sessionExpiryInterval: 600 } } as const;
    const pub = await mqttTo(leader, { ...session, clientId: "fo-pub" });
    const sub = await mqttTo(leader, { ...session, clientId: "fo-sub" });
    sub.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "fo/out", qos: 2 }] });
    await sub.until((ps) => ps.some((p) => p.cmd === "suback"));

    // Inbound: PUBREC came, PUBREL not sent yet.
    pub.send({ cmd: "publish", topic: "fo/in", payload: Buffer.from("once"), qos: 2, messageId: 7, dup: false, retain: false });
    await pub.until(has("pubrec", 7), 15_000);
    // Outbound: the subscriber's PUBREC answered by PUBREL; PUBCOMP not sent.
    pub.send({ cmd: "publish", topic: "fo/out", payload: Buffer.from("out"), qos: 2, messageId: 8, dup: false, retain: false });
    await sub.until((ps) => publishes(ps).length === 1, 15_000);
    const delivered = publishes(sub.packets)[0]!;
    sub.send({ cmd: "pubrec", messageId: delivered.messageId! });
    await sub.until(has("pubrel", delivered.messageId!), 15_000);
    pub.close();
    sub.close();

    await cluster.kill(leader);
    const next = await cluster.waitForLeader(leader);
    const pub2 = await mqttTo(next, { ...session, clientId: "fo-pub" });
    pub2.send({ cmd: "publish", topic: "fo/in", payload: Buffer.from("once"), qos: 2, messageId: 7, dup: true, retain: false });
    await pub2.until(has("pubrec", 7), 15_000);
    pub2.send({ cmd: "pubrel", messageId: 7 });
    await pub2.until(has("pubcomp", 7), 15_000);

    const sub2 = await mqttTo(next, { ...session, clientId: "fo-sub" });
    await sub2.until(has("pubrel", delivered.messageId!), 15_000);
    sub2.send({ cmd: "pubcomp", messageId: delivered.messageId! });
    // A marker behind it: whatever the new leader would send again comes before it.
    pub2.send({ cmd: "publish", topic: "fo/out", payload: Buffer.from("marker"), qos: 1, messageId: 9, dup: false, retain: false });
    await sub2.until((ps) => publishes(ps).some((p) => p.payload.toString() === "marker"), 15_000);
    assert.deepEqual(publishes(sub2.packets).map((p) => p.payload.toString()), ["marker"], "the delivery whose PUBREL went is not sent again");
    pub2.close();
    sub2.close();

    const c2 = await amqp.connect(cluster.url(next));
    const ch2 = await c2.createChannel();
    const bodies: string[] = [];
    for (let m = await ch2.get("fo-amqp", { noAck: true }); m !== false; m = await ch2.get("fo-amqp", { noAck: true })) bodies.push(m.content.toString());
    assert.deepEqual(bodies, ["once"], "routed once across the failover");
    await c2.close();
    pass();
  });
});
