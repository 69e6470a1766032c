// MQTT session state with mqtt.js: clean sessions go with their connection, persistent sessions
// keep their queue (and its messages) across disconnects and a broker restart, a second CONNECT
// with the same client id takes the session over, the last will, and retained messages (per
// vhost, cleared by an empty payload, kept across a restart).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { connectMqtt, sleep, waitUntil, useMqttClients } from "../helpers/mqtt-client.js";

describe("MQTT sessions, will and retained messages", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-mqtt-sessions-"));
  let broker: TestBroker;
  let url: string;
  const mqtt = useMqttClients(() => url);
  const open = mqtt.connect;
  const start = async (): Promise<void> => {
    broker = await startTestBroker({ mqttPort: 0, dataDir });
    url = `mqtt://127.0.0.1:${broker.mqttPort}`;
  };
  const queues = (): Map<string, import("../../src/broker/queue/queue.js").Queue> => broker.broker.vhost("/").queues;

  before(start);
  after(async () => {
    await broker.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("a clean session's queue is exclusive to its connection and goes when it closes", async () => {
    const c = await connectMqtt(url, { clientId: "cleaner", clean: true });
    await c.client.subscribeAsync("clean/t", { qos: 1 });
    const q = queues().get("mqtt-subscription-cleanerqos1");
    assert.ok(q);
    assert.equal(q.durable, false);
    assert.notEqual(q.exclusiveOwner, null);
    await c.client.endAsync();
    await waitUntil(() => !queues().has("mqtt-subscription-cleanerqos1"));
  });

  it("a persistent session's durable queue collects messages while the client is away, and it survives a broker restart", async () => {
    const c = await connectMqtt(url, { clientId: "keeper", clean: false });
    await c.client.subscribeAsync("keep/#", { qos: 1 });
    const q = queues().get("mqtt-subscription-keeperqos1")!;
    assert.equal(q.durable, true);
    assert.equal(q.exclusiveOwner, null);
    assert.equal(q.arguments["x-expires"], 86_400_000, "RabbitMQ's default session expiry, one day");
    await c.client.endAsync();
    const pub = await connectMqtt(url, { clientId: "keeper-pub" });
    await pub.client.publishAsync("keep/a", "while away 1", { qos: 1 });
    await pub.client.publishAsync("keep/b", "while away 2", { qos: 1 });
    await pub.client.endAsync();
    await waitUntil(() => q.messageCount === 2);

    await broker.close();
    await start();
    assert.equal(queues().get("mqtt-subscription-keeperqos1")?.messageCount, 2);
    const back = await open(url, { clientId: "keeper", clean: false });
    assert.equal(back.client.connected, true);
    const got = await back.waitFor(2);
    assert.deepEqual(got.map((r) => [r.topic, r.payload.toString()]), [["keep/a", "while away 1"], ["keep/b", "while away 2"]]);
    // The subscription itself came back from the queue's binding.
    const pub2 = await open(url, { clientId: "keeper-pub2" });
    await pub2.client.publishAsync("keep/c", "after restart", { qos: 1 });
    const [, , third] = await back.waitFor(3);
    assert.equal(third!.payload.toString(), "after restart");
  });

  it("an MQTT 5 DISCONNECT with a new session expiry changes the session queues' x-expires, kept across a restart (RabbitMQ 3.13)", async () => {
    const c = await connectMqtt(url, { protocolVersion: 5, clientId: "sei-change", clean: false, properties: { sessionExpiryInterval: 300 } });
    await c.client.subscribeAsync("sei-change/t", { qos: 1 });
    assert.equal(queues().get("mqtt-subscription-sei-changeqos1")?.arguments["x-expires"], 300_000);
    await c.client.endAsync(false, { reasonCode: 0, properties: { sessionExpiryInterval: 7200 } });
    await waitUntil(() => queues().get("mqtt-subscription-sei-changeqos1")?.arguments["x-expires"] === 7_200_000);
    assert.equal(queues().get("mqtt-subscription-sei-changeqos1")!.settings.expires, 7_200_000, "in force, not only recorded");
    await broker.close();
    await start();
    assert.equal(queues().get("mqtt-subscription-sei-changeqos1")?.settings.expires, 7_200_000, "saved with the queue's definition");
    const back = await open(url, { protocolVersion: 5, clientId: "sei-change", clean: false, properties: { sessionExpiryInterval: 7200 } });
    assert.equal(back.connack?.sessionPresent, true);
  });

  it("reports session present on CONNACK for a persistent session that exists", async () => {
    const first = await connectMqtt(url, { clientId: "present", clean: false });
    await first.client.subscribeAsync("p/t", { qos: 1 });
    await first.client.endAsync();
    const again = await connectMqtt(url, { clientId: "present", clean: false });
    assert.equal(again.connack?.sessionPresent, true);
    await again.client.endAsync();
    // A clean start deletes what the persistent session left.
    const clean = await open(url, { clientId: "present", clean: true });
    assert.equal(clean.connack?.sessionPresent, false);
    assert.equal(queues().has("mqtt-subscription-presentqos1"), false);
  });

  it("a second CONNECT with the same client id closes the first connection and takes the session over", async () => {
    const first = await connectMqtt(url, { clientId: "twin", clean: false });
    await first.client.subscribeAsync("twin/t", { qos: 1 });
    const firstClosed = new Promise<void>((resolve) => first.client.stream.once("close", () => resolve()));
    const second = await open(url, { clientId: "twin", clean: false });
    await firstClosed;
    const pub = await open(url, { clientId: "twin-pub" });
    await pub.client.publishAsync("twin/t", "to the new one", { qos: 1 });
    const [r] = await second.waitFor(1);
    assert.equal(r!.payload.toString(), "to the new one");
    assert.equal(broker.broker.connections.list().filter((c) => c.info().clientProperties["client_id"] === "twin").length, 1);
  });

  it("publishes the will when a client disappears without DISCONNECT, and not after a DISCONNECT", async () => {
    const watcher = await open(url, { clientId: "will-watcher" });
    await watcher.client.subscribeAsync("status/+", { qos: 1 });
    const polite = await connectMqtt(url, { clientId: "polite", will: { topic: "status/polite", payload: Buffer.from("gone"), qos: 1, retain: false } });
    await polite.client.endAsync();
    const rude = await connectMqtt(url, { clientId: "rude", will: { topic: "status/rude", payload: Buffer.from("lost"), qos: 1, retain: false } });
    rude.client.stream.destroy();
    const [r] = await watcher.waitFor(1);
    assert.equal(r!.topic, "status/rude");
    assert.equal(r!.payload.toString(), "lost");
    await sleep(100);
    assert.equal(watcher.received.length, 1, "no will after a DISCONNECT");
  });

  it("delivers retained messages on subscribe (wildcards too), clears them with an empty payload, and keeps them across a restart", async () => {
    const pub = await connectMqtt(url, { clientId: "retainer" });
    await pub.client.publishAsync("rooms/kitchen/light", "on", { qos: 1, retain: true });
    await pub.client.publishAsync("rooms/hall/light", "off", { qos: 0, retain: true });
    await pub.client.publishAsync("rooms/attic/light", "dim", { qos: 1, retain: true });
    await pub.client.publishAsync("rooms/attic/light", "", { qos: 1, retain: true });
    await pub.client.endAsync();

    const exact = await open(url, { clientId: "retained-exact" });
    await exact.client.subscribeAsync("rooms/kitchen/light", { qos: 1 });
    const [k] = await exact.waitFor(1);
    assert.equal(k!.payload.toString(), "on");
    assert.equal(k!.packet.retain, true);
    assert.equal(k!.packet.qos, 1);

    await sleep(50); // the retained store writes at the end of the event-loop turn
    await broker.close();
    await start();
    const wild = await open(url, { clientId: "retained-wild" });
    await wild.client.subscribeAsync("rooms/+/light", { qos: 1 });
    const got = await wild.waitFor(2);
    assert.deepEqual(got.map((r) => [r.topic, r.payload.toString(), r.packet.qos]).sort(), [["rooms/hall/light", "off", 0], ["rooms/kitchen/light", "on", 1]]);
    await sleep(50);
    assert.equal(wild.received.length, 2, "the cleared topic is not retained");
  });

  it("keeps retained messages per vhost", async () => {
    broker.broker.putVhost("other", {});
    broker.broker.setPermission("guest", "other", { configure: ".*", write: ".*", read: ".*" });
    const pub = await open(url, { clientId: "vh-pub" });
    await pub.client.publishAsync("vh/t", "in /", { qos: 1, retain: true });
    const other = await open(url, { clientId: "vh-sub", username: "other:guest", password: "guest" });
    await other.client.subscribeAsync("vh/t", { qos: 1 });
    await sleep(100);
    assert.equal(other.received.length, 0);
  });
});
