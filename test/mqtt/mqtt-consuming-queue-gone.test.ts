// A queue an MQTT session consumes from goes (deleted here through AMQP; in a cluster also its
// leader lost or its declare lost to another node's): RabbitMQ's MQTT plugin closes the connection
// (3.10.8, recorded: `subscription_cancelled`; 3.13+: `consuming_queue_down`), so the client
// reconnects and subscribes again. Before, Coney kept the connection with a subscription that
// delivered nothing. As RabbitMQ 3.10.8 (recorded), no DISCONNECT packet and no will; a client that
// reconnects gets its subscription's messages again.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import { connect, type MqttClient } from "mqtt";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { withTimeout } from "../helpers/wait.js";

describe("MQTT: a queue the session consumes from goes", () => {
  let broker: TestBroker;
  let conn: ChannelModel;
  const clients: MqttClient[] = [];
  before(async () => {
    broker = await startTestBroker({ mqttPort: 0 });
    conn = await amqp.connect(broker.amqpUrl);
  });
  after(async () => {
    for (const c of clients) await c.endAsync(true);
    await conn.close();
    await broker.close();
  });

  const client = async (clientId: string, will?: { topic: string; payload: string }): Promise<MqttClient> => {
    const c = connect(`mqtt://127.0.0.1:${broker.mqttPort}`, { clientId, clean: false, username: "guest", password: "guest", protocolVersion: 4, reconnectPeriod: 0, ...(will ? { will: { ...will, qos: 0, retain: false } } : {}) });
    c.on("error", () => {});
    clients.push(c);
    await withTimeout(new Promise((r) => c.once("connect", r)), 5000, `${clientId} connected`);
    return c;
  };

  it("closes the connection without sending the will, as RabbitMQ does", async () => {
    const watcher = await client("gone-watcher");
    await watcher.subscribeAsync("wills/gone", { qos: 1 });
    const wills: string[] = [];
    watcher.on("message", (topic, payload) => topic === "wills/gone" && wills.push(payload.toString()));
    const c = await client("gone-c", { topic: "wills/gone", payload: "gone-c left" });
    await c.subscribeAsync("gone/t", { qos: 1 });
    const closed = new Promise<void>((resolve) => c.once("close", () => resolve()));
    const ch = await conn.createChannel();
    await ch.deleteQueue("mqtt-subscription-gone-cqos1");
    await withTimeout(closed, 5000, "the connection closed");
    // No will: a marker published after the close reaches the watcher alone (its queue keeps order).
    const marker = new Promise<void>((resolve) => watcher.on("message", (topic) => topic === "wills/gone" && wills.includes("marker") && resolve()));
    ch.publish("amq.topic", "wills.gone", Buffer.from("marker"));
    await withTimeout(marker, 5000, "the marker");
    assert.deepEqual(wills, ["marker"], "no will was published");
    // Reconnected and subscribed again, the session gets what is published to its topic.
    const again = await client("gone-c");
    await again.subscribeAsync("gone/t", { qos: 1 });
    const got = new Promise<string>((resolve) => again.on("message", (_t, p) => resolve(p.toString())));
    ch.publish("amq.topic", "gone.t", Buffer.from("after"));
    assert.equal(await withTimeout(got, 5000, "a message after the resubscribe"), "after");
    await ch.close();
  });
});
