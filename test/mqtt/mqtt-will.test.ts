// The last will with mqtt.js: MQTT 5 DISCONNECT reasons (0x00 sends no will, 0x04 and others do),
// MQTT 5 will delay (parked in the queue mqtt-will-<client id> as RabbitMQ parks it, published
// when the delay or the session ends, whichever comes first; not published when the session is
// resumed in time; kept across a broker restart), and a will refused by topic permissions.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { sleep, waitUntil, type TestMqttClient, useMqttClients } from "../helpers/mqtt-client.js";

describe("MQTT last will", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-mqtt-will-"));
  let broker: TestBroker;
  let url: string;
  let watcher: TestMqttClient;
  const mqtt = useMqttClients(() => url, { protocolVersion: 5 });
  const open = mqtt.open;
  const start = async (): Promise<void> => {
    broker = await startTestBroker({ mqttPort: 0, dataDir });
    url = `mqtt://127.0.0.1:${broker.mqttPort}`;
    watcher = await open({ clientId: `will-watcher-${Date.now()}` });
    await watcher.client.subscribeAsync("will/#", { qos: 1 });
  };
  const will = (topic: string, delay?: number) => ({
    topic,
    payload: Buffer.from(`${topic} is gone`),
    qos: 1 as const,
    retain: false,
    ...(delay !== undefined ? { properties: { willDelayInterval: delay } } : {}),
  });
  const queues = () => broker.broker.vhost("/").queues;
  /** Drops the client's socket without DISCONNECT. */
  const drop = (c: TestMqttClient): void => void c.client.stream.destroy();

  before(start);
  after(async () => {
    await broker.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("MQTT 5 DISCONNECT: reason 0x00 sends no will, 0x04 (with will message) and error reasons do", async () => {
    const normal = await open({ clientId: "w-normal", will: will("will/normal") });
    await normal.client.endAsync(false, { reasonCode: 0x00 });
    const withWill = await open({ clientId: "w-04", will: will("will/04") });
    await withWill.client.endAsync(false, { reasonCode: 0x04 });
    const error = await open({ clientId: "w-80", will: will("will/80") });
    await error.client.endAsync(false, { reasonCode: 0x80 });
    const got = await watcher.waitFor(2);
    assert.deepEqual(got.map((r) => r.topic).sort(), ["will/04", "will/80"]);
    await sleep(100);
    assert.equal(watcher.received.length, 2);
    watcher.received.length = 0;
  });

  it("parks a will with a delay in mqtt-will-<client id> and publishes it when the delay has passed", async () => {
    const c = await open({ clientId: "w-delayed", properties: { sessionExpiryInterval: 60 }, will: will("will/delayed", 1) });
    const dropped = Date.now();
    drop(c);
    await waitUntil(() => queues().get("mqtt-will-w-delayed")?.messageCount === 1);
    const q = queues().get("mqtt-will-w-delayed")!;
    assert.equal(q.durable, true);
    assert.equal(q.arguments["x-dead-letter-exchange"], "amq.topic");
    assert.equal(q.arguments["x-dead-letter-routing-key"], "will.delayed");
    assert.equal(watcher.received.length, 0, "not published at once");
    const [r] = await watcher.waitFor(1);
    const waited = Date.now() - dropped;
    assert.equal(r!.topic, "will/delayed");
    assert.equal(r!.payload.toString(), "will/delayed is gone");
    assert.ok(waited >= 900, `published after ${waited} ms`);
    watcher.received.length = 0;
  });

  it("publishes a delayed will when the session ends first", async () => {
    const c = await open({ clientId: "w-short-session", properties: { sessionExpiryInterval: 1 }, will: will("will/session-end", 600) });
    const dropped = Date.now();
    drop(c);
    const [r] = await watcher.waitFor(1, 10_000);
    assert.equal(r!.topic, "will/session-end");
    assert.ok(Date.now() - dropped < 5000);
    watcher.received.length = 0;
  });

  it("does not publish a delayed will when the client reconnects in time (the parked will is deleted)", async () => {
    const c = await open({ clientId: "w-back", clean: false, properties: { sessionExpiryInterval: 60 }, will: will("will/back", 2) });
    drop(c);
    await waitUntil(() => queues().get("mqtt-will-w-back")?.messageCount === 1);
    const again = await open({ clientId: "w-back", clean: false, properties: { sessionExpiryInterval: 60 } });
    assert.equal(again.connack?.sessionPresent, false, "no subscriptions: nothing to resume but the will");
    assert.equal(queues().has("mqtt-will-w-back"), false);
    await sleep(2500);
    assert.equal(watcher.received.length, 0);
  });

  it("a will without delay, or with a session that ends with the connection, is published at once", async () => {
    const c = await open({ clientId: "w-no-session", properties: { sessionExpiryInterval: 0 }, will: will("will/no-session", 30) });
    drop(c);
    const [r] = await watcher.waitFor(1);
    assert.equal(r!.topic, "will/no-session");
    assert.equal(queues().has("mqtt-will-w-no-session"), false);
    watcher.received.length = 0;
  });

  it("keeps a parked will across a broker restart", async () => {
    const c = await open({ clientId: "w-restart", properties: { sessionExpiryInterval: 60 }, will: will("will/restart", 2) });
    drop(c);
    await waitUntil(() => queues().get("mqtt-will-w-restart")?.messageCount === 1);
    await broker.close();
    await start();
    assert.equal(queues().get("mqtt-will-w-restart")?.messageCount, 1);
    const [r] = await watcher.waitFor(1, 10_000);
    assert.equal(r!.topic, "will/restart");
    watcher.received.length = 0;
  });

  it("a will the client may not publish (topic permissions) is dropped and logged; one it may publish goes", async () => {
    broker.broker.putUser("limited", { password: "pw", tags: [] });
    broker.broker.setPermission("limited", "/", { configure: ".*", write: ".*", read: ".*" });
    broker.broker.setTopicPermission("limited", "/", { exchange: "amq.topic", write: "^will\\.ok\\.", read: ".*" });
    const refused = await open({ clientId: "w-limited", username: "limited", password: "pw", will: will("will/limited") });
    const allowed = await open({ clientId: "w-allowed", username: "limited", password: "pw", will: will("will/ok/x") });
    drop(refused);
    await waitUntil(() => !broker.broker.connections.list().some((x) => x.info().clientProperties["client_id"] === "w-limited"));
    drop(allowed);
    const [r] = await watcher.waitFor(1);
    assert.equal(r!.topic, "will/ok/x");
    await sleep(100);
    assert.equal(watcher.received.length, 1);
  });
});
