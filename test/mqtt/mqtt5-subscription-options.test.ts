// MQTT 5 subscription options with mqtt.js: No Local (a client does not get back what it
// publishes, others do), Retain As Published (RETAIN kept only for subscriptions that ask),
// Retain Handling 0/1/2 (retained messages on every subscribe, on a new subscription only, never),
// and the options kept in the binding arguments as RabbitMQ keeps them, so they survive a
// reconnect and a broker restart and are re-made when a 3.1.1 client resumes the session.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { connectMqtt, sleep, waitUntil, type TestMqttClient, useMqttClients } from "../helpers/mqtt-client.js";

describe("MQTT 5 subscription options", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-mqtt-subopts-"));
  let broker: TestBroker;
  let url: string;
  const mqtt = useMqttClients(() => url, { protocolVersion: 5 });
  const open = mqtt.open;
  const start = async (): Promise<void> => {
    broker = await startTestBroker({ mqttPort: 0, dataDir });
    url = `mqtt://127.0.0.1:${broker.mqttPort}`;
  };
  const bindings = (queue: string) => [...(broker.broker.vhost("/").queues.get(queue)?.boundFrom ?? [])].map((b) => ({ key: b.routingKey, args: b.args }));

  before(start);
  after(async () => {
    await broker.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("No Local: the publisher's own subscription does not get its message; another client's does", async () => {
    const self = await open({ clientId: "nl-self" });
    await self.client.subscribeAsync("nl/#", { qos: 1, nl: true });
    const other = await open({ clientId: "nl-other" });
    await other.client.subscribeAsync("nl/#", { qos: 1 });
    await self.client.publishAsync("nl/a", "from self", { qos: 1 });
    await other.client.publishAsync("nl/b", "from other", { qos: 1 });
    const [o1, o2] = await other.waitFor(2);
    assert.deepEqual([o1!.payload.toString(), o2!.payload.toString()], ["from self", "from other"]);
    const [s1] = await self.waitFor(1);
    assert.equal(s1!.payload.toString(), "from other");
    await sleep(100);
    assert.equal(self.received.length, 1, "its own message never reached it");
    assert.equal(broker.broker.vhost("/").queues.get("mqtt-subscription-nl-selfqos1")?.messageCount, 0);
  });

  it("No Local applies per subscription: a matching subscription without it still delivers", async () => {
    const c = await open({ clientId: "nl-mixed" });
    await c.client.subscribeAsync("mix/+", { qos: 1, nl: true });
    await c.client.subscribeAsync("mix/keep", { qos: 1 });
    await c.client.publishAsync("mix/drop", "dropped", { qos: 1 });
    await c.client.publishAsync("mix/keep", "kept", { qos: 1 });
    const [r] = await c.waitFor(1);
    assert.equal(r!.payload.toString(), "kept");
    await sleep(100);
    assert.equal(c.received.length, 1);
  });

  it("Retain As Published: only a subscription that asks for it sees RETAIN on a live message", async () => {
    const rap = await open({ clientId: "rap-yes" });
    await rap.client.subscribeAsync("rap/t", { qos: 1, rap: true });
    const plain = await open({ clientId: "rap-no" });
    await plain.client.subscribeAsync("rap/t", { qos: 1 });
    const v3 = await connectMqtt(url, { clientId: "rap-v3" });
    mqtt.keep(v3);
    await v3.client.subscribeAsync("rap/t", { qos: 1 });
    const pub = await open({ clientId: "rap-pub" });
    await pub.client.publishAsync("rap/t", "kept flag", { qos: 1, retain: true });
    await pub.client.publishAsync("rap/t", "no flag", { qos: 1 });
    const flags = async (c: TestMqttClient) => (await c.waitFor(2)).map((r) => [r.payload.toString(), r.packet.retain]);
    assert.deepEqual(await flags(rap), [["kept flag", true], ["no flag", false]]);
    assert.deepEqual(await flags(plain), [["kept flag", false], ["no flag", false]]);
    assert.deepEqual(await flags(v3), [["kept flag", false], ["no flag", false]], "MQTT 3.1.1 forwards with RETAIN 0 (§3.3.1.3)");
    await pub.client.publishAsync("rap/t", "", { qos: 1, retain: true });
  });

  it("Retain Handling: 0 sends retained messages on every SUBSCRIBE, 1 only for a new subscription, 2 never", async () => {
    const pub = await open({ clientId: "rh-pub" });
    await pub.client.publishAsync("rh/t", "retained", { qos: 1, retain: true });
    const never = await open({ clientId: "rh-2" });
    await never.client.subscribeAsync("rh/t", { qos: 1, rh: 2 });
    const once = await open({ clientId: "rh-1" });
    await once.client.subscribeAsync("rh/t", { qos: 1, rh: 1 });
    await once.waitFor(1);
    await once.client.subscribeAsync("rh/t", { qos: 1, rh: 1 });
    const always = await open({ clientId: "rh-0" });
    await always.client.subscribeAsync("rh/t", { qos: 1, rh: 0 });
    await always.waitFor(1);
    await always.client.subscribeAsync("rh/t", { qos: 1, rh: 0 });
    await always.waitFor(2);
    // A marker after the SUBSCRIBEs: once each client has it, nothing else is on its way.
    await pub.client.publishAsync("rh/t", "marker", { qos: 1 });
    await never.waitFor(1);
    await once.waitFor(2);
    await always.waitFor(3);
    assert.deepEqual(never.received.map((r) => r.payload.toString()), ["marker"]);
    assert.deepEqual(once.received.map((r) => r.payload.toString()), ["retained", "marker"]);
    assert.deepEqual(always.received.map((r) => r.payload.toString()), ["retained", "retained", "marker"]);
    await pub.client.publishAsync("rh/t", "", { qos: 1, retain: true });
  });

  it("keeps the options in the binding arguments, across a reconnect and a broker restart", async () => {
    const first = await connectMqtt(url, { protocolVersion: 5, clientId: "opts-keeper", clean: false, properties: { sessionExpiryInterval: 600 } });
    await first.client.subscribeAsync("keep/+", { qos: 1, nl: true, rap: true, rh: 1 });
    assert.deepEqual(bindings("mqtt-subscription-opts-keeperqos1"), [
      {
        key: "keep.*",
        args: { "x-mqtt-subscription-opts": { "no-local": true, qos: 1, "retain-as-published": true, "retain-handling": 1 }, "x-binding-key": "keep.*" },
      },
    ]);
    await first.client.endAsync();
    await broker.close();
    await start();
    const back = await open({ clientId: "opts-keeper", clean: false, properties: { sessionExpiryInterval: 600 } });
    assert.equal(back.connack?.sessionPresent, true);
    await back.client.publishAsync("keep/own", "own", { qos: 1 });
    const pub = await open({ clientId: "opts-pub" });
    await pub.client.publishAsync("keep/x", "other", { qos: 1, retain: true });
    const [r] = await back.waitFor(1);
    assert.equal(r!.payload.toString(), "other");
    assert.equal(r!.packet.retain, true, "Retain As Published came back with the session");
    await sleep(100);
    assert.equal(back.received.length, 1, "No Local came back with the session");
    await pub.client.publishAsync("keep/x", "", { qos: 1, retain: true });
  });

  it("re-makes the bindings when the session is resumed by an MQTT 3.1.1 client, and back", async () => {
    const v5 = await connectMqtt(url, { protocolVersion: 5, clientId: "switcher", clean: false, properties: { sessionExpiryInterval: 600 } });
    await v5.client.subscribeAsync("sw/t", { qos: 1, nl: true });
    await v5.client.endAsync();
    const v3 = await connectMqtt(url, { clientId: "switcher", clean: false });
    assert.deepEqual(bindings("mqtt-subscription-switcherqos1"), [{ key: "sw.t", args: {} }]);
    await v3.client.publishAsync("sw/t", "3.1.1 has no No Local", { qos: 1 });
    await v3.waitFor(1);
    await v3.client.endAsync();
    const again = await open({ clientId: "switcher", clean: false, properties: { sessionExpiryInterval: 600 } });
    await waitUntil(() => bindings("mqtt-subscription-switcherqos1")[0]?.args["x-binding-key"] === "sw.t");
    assert.equal(again.connack?.sessionPresent, true);
  });
});
