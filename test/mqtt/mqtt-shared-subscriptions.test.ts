// Shared subscriptions `$share/<group>/<filter>` (MQTT 5 §4.8.2, and from MQTT 3.1.1 clients as
// Mosquitto accepts them), with mqtt.js and bare packets against the real broker: messages are
// spread over the group's members, each delivered once; a member that leaves hands its
// unacknowledged messages to the others; a persistent member's group keeps messages while it is
// away; the group's queue goes with its last member; malformed shared filters close the connection.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { rawMqtt, useMqttClients, waitUntil } from "../helpers/mqtt-client.js";
import { sharedFilter, subscribeViolation } from "../../src/mqtt/subscribe-checks.js";

describe("shared subscription filters", () => {
  it("splits `$share/<group>/<filter>` and refuses malformed ones [MQTT-4.8.2-1, MQTT-4.8.2-2]", () => {
    assert.deepEqual(sharedFilter("$share/g/a/+/#"), { group: "g", filter: "a/+/#" });
    assert.deepEqual(sharedFilter("$share/g//"), { group: "g", filter: "/" });
    assert.equal(sharedFilter("a/b"), null);
    assert.equal(sharedFilter("$shared/g/a"), null);
    for (const bad of ["$share/", "$share/g", "$share/g/", "$share//a", "$share/+/a", "$share/g#/a", "$share/g/a/#/b"]) assert.equal(sharedFilter(bad), "invalid", bad);
    const packet = (topic: string, nl = false) => ({ cmd: "subscribe" as const, messageId: 1, subscriptions: [{ topic, qos: 1 as const, nl }] });
    assert.equal(subscribeViolation(packet("$share/g/a")), null);
    assert.equal(subscribeViolation(packet("$share/g/a", true))?.reasonCode, 0x82);
    assert.equal(subscribeViolation(packet("a/#/b"))?.reasonCode, 0x8f);
    assert.equal(subscribeViolation(packet("a/b", true)), null, "No Local on a plain subscription is fine");
  });
});

describe("MQTT shared subscriptions", () => {
  let broker: TestBroker;
  const mqtt = useMqttClients(() => `mqtt://127.0.0.1:${broker.mqttPort}`, { protocolVersion: 5 });
  before(async () => {
    broker = await startTestBroker({ mqttPort: 0 });
  });
  after(() => broker.close());
  const queue = (name: string) => broker.broker.vhosts.get("/")!.queues.get(name);

  it("announces Shared Subscription Available and Subscription Identifiers Available", async () => {
    const c = await mqtt.open({ clientId: "share-connack" });
    assert.equal(c.connack?.properties?.sharedSubscriptionAvailable, true);
    assert.equal(c.connack?.properties?.subscriptionIdentifiersAvailable, true);
  });

  it("spreads a group's messages over its members, each once, while a plain subscriber gets them all", async () => {
    const a = await mqtt.open({ clientId: "share-a" });
    const b = await mqtt.open({ clientId: "share-b", protocolVersion: 4 });
    const plain = await mqtt.open({ clientId: "share-plain" });
    const granted = await a.client.subscribeAsync("$share/g1/spread/#", { qos: 1 });
    assert.equal(granted[0]?.qos, 1);
    assert.equal((await b.client.subscribeAsync("$share/g1/spread/#", { qos: 1 }))[0]?.qos, 1, "a 3.1.1 client joins the same group");
    await plain.client.subscribeAsync("spread/#", { qos: 1 });
    const pub = await mqtt.open({ clientId: "share-pub" });
    const n = 40;
    for (let i = 0; i < n; i++) await pub.client.publishAsync(`spread/${i}`, String(i), { qos: 1 });
    await plain.waitFor(n);
    await waitUntil(() => a.received.length + b.received.length >= n);
    const seen = [...a.received, ...b.received].map((r) => Number(r.payload.toString())).sort((x, y) => x - y);
    assert.deepEqual(seen, Array.from({ length: n }, (_, i) => i), "every message once over the group");
    assert.ok(a.received.length > 0 && b.received.length > 0, `both members get some (${a.received.length}/${b.received.length})`);
    assert.ok(queue("mqtt-shared-g1/spread/#"), "the group's queue");
    // The management API lists each member's consumer on its connection's channel.
    for (const clientId of ["share-a", "share-b"]) {
      const conn = broker.broker.connections.list().find((c) => c.info().clientProperties?.["client_id"] === clientId);
      const consumers = conn?.info().channels[0]?.consumers.map((c) => c.queue);
      assert.ok(consumers?.includes("mqtt-shared-g1/spread/#"), `${clientId}: ${JSON.stringify(consumers)}`);
    }
  });

  it("delivers at the lower of the member's QoS and the message's, and the messages a member leaves unacknowledged go to another", async () => {
    // A bare client holds its PUBACKs: everything it was sent stays unacknowledged.
    const holder = await rawMqtt(broker.mqttPort!, { clientId: "share-holder" });
    holder.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "$share/g2/left/t", qos: 1 }] });
    await holder.until((ps) => ps.some((p) => p.cmd === "suback"));
    const pub = await mqtt.open({ clientId: "share-pub2" });
    for (let i = 0; i < 3; i++) await pub.client.publishAsync("left/t", `m${i}`, { qos: 1 });
    await holder.until((ps) => ps.filter((p) => p.cmd === "publish").length === 3);
    const other = await mqtt.open({ clientId: "share-other" });
    await other.client.subscribeAsync("$share/g2/left/t", { qos: 0 });
    holder.close();
    const got = await other.waitFor(3);
    assert.deepEqual(got.map((r) => [r.payload.toString(), r.packet.qos]), [["m0", 0], ["m1", 0], ["m2", 0]]);
  });

  it("keeps a persistent member's group while it is away; the group's queue goes with its last member", async () => {
    const opts = { clientId: "share-away", clean: false, properties: { sessionExpiryInterval: 60 } };
    const away = await mqtt.open(opts);
    await away.client.subscribeAsync("$share/g3/away/t", { qos: 2 });
    await away.client.endAsync();
    const pub = await mqtt.open({ clientId: "share-pub3" });
    await pub.client.publishAsync("away/t", "while away", { qos: 2 });
    const back = await mqtt.open(opts);
    assert.equal(back.connack?.sessionPresent, true);
    const [m] = await back.waitFor(1);
    assert.equal(m?.payload.toString(), "while away");
    assert.equal(m?.packet.qos, 2);
    assert.equal(queue("mqtt-shared-g3/away/t")?.durable, true);
    const unsub = await back.client.unsubscribeAsync("$share/g3/away/t");
    assert.deepEqual((unsub as { reasonCodes?: number[] } | undefined)?.reasonCodes ?? [0], [0]);
    assert.equal(queue("mqtt-shared-g3/away/t"), undefined, "deleted with its last member");

    const clean = await mqtt.open({ clientId: "share-clean" });
    await clean.client.subscribeAsync("$share/g4/clean/t", { qos: 1 });
    assert.ok(queue("mqtt-shared-g4/clean/t"));
    await clean.client.endAsync();
    await waitUntil(() => queue("mqtt-shared-g4/clean/t") === undefined);
  });

  it("a session whose only subscription is shared counts as a consumer (Prometheus' consumers gauge)", async () => {
    const gauge = () => broker.broker.stats.protocol("mqtt50").consumers;
    const c = await mqtt.open({ clientId: "share-gauge" });
    const before = gauge();
    await c.client.subscribeAsync("$share/gg/gauge/t", { qos: 1 });
    assert.equal(gauge(), before + 1);
    await c.client.unsubscribeAsync("$share/gg/gauge/t");
    assert.equal(gauge(), before);
    await c.client.subscribeAsync("$share/gg/gauge/t", { qos: 1 });
    await c.client.endAsync();
    await waitUntil(() => gauge() === before);
  });

  it("sends no retained message on a shared subscription", async () => {
    const pub = await mqtt.open({ clientId: "share-ret-pub" });
    await pub.client.publishAsync("ret/t", "kept", { qos: 1, retain: true });
    const sub = await mqtt.open({ clientId: "share-ret-sub" });
    await sub.client.subscribeAsync("$share/g5/ret/t", { qos: 1 });
    await sub.client.subscribeAsync("ret/t", { qos: 1 });
    await sub.waitFor(1);
    await pub.client.publishAsync("ret/t", "live", { qos: 1 });
    const got = await sub.waitFor(3);
    assert.deepEqual(got.map((r) => r.payload.toString()).sort(), ["kept", "live", "live"]);
    await pub.client.publishAsync("ret/t", "", { qos: 1, retain: true });
  });

  for (const [topic, nl, code] of [["$share/g6", false, 0x8f], ["$share//x", false, 0x8f], ["$share/g+/x", false, 0x8f], ["$share/g7/x", true, 0x82]] as const) {
    it(`closes the connection on SUBSCRIBE '${topic}'${nl ? " with No Local" : ""} (0x${code.toString(16)})`, async () => {
      const c = await rawMqtt(broker.mqttPort!, { clientId: `share-bad-${code}-${topic.length}` });
      c.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic, qos: 1, nl }] });
      await c.until((ps) => ps.some((p) => p.cmd === "disconnect" && p.reasonCode === code));
      await c.closed;
    });
  }
});

describe("MQTT shared subscriptions across a restart", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-mqtt-shared-"));
  let broker: TestBroker;
  const mqtt = useMqttClients(() => `mqtt://127.0.0.1:${broker.mqttPort}`, { protocolVersion: 5 });
  before(async () => {
    broker = await startTestBroker({ mqttPort: 0, dataDir });
  });
  after(async () => {
    await broker.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("a persistent member is still in its group after a restart, with the messages that came while it was away", async () => {
    const opts = { clientId: "share-restart", clean: false, properties: { sessionExpiryInterval: 600 } };
    const member = await mqtt.open(opts);
    await member.client.subscribeAsync("$share/gr/restart/t", { qos: 1, properties: { subscriptionIdentifier: 5 } });
    await member.client.endAsync();
    const pub = await mqtt.open({ clientId: "share-restart-pub" });
    await pub.client.publishAsync("restart/t", "kept", { qos: 1 });
    await pub.client.endAsync();
    await broker.close();
    broker = await startTestBroker({ mqttPort: 0, dataDir });
    const back = await mqtt.open(opts);
    assert.equal(back.connack?.sessionPresent, true);
    const pub2 = await mqtt.open({ clientId: "share-restart-pub2" });
    await pub2.client.publishAsync("restart/t", "after", { qos: 1 });
    const got = await back.waitFor(2);
    assert.deepEqual(got.map((r) => [r.payload.toString(), r.packet.properties?.subscriptionIdentifier]), [["kept", 5], ["after", 5]]);
    // A clean start leaves the group: its queue, whose last member it was, goes.
    await back.client.endAsync();
    const clean = await mqtt.open({ clientId: "share-restart", clean: true });
    assert.equal(clean.connack?.sessionPresent, false);
    assert.equal(broker.broker.vhosts.get("/")!.queues.get("mqtt-shared-gr/restart/t"), undefined);
  });
});
