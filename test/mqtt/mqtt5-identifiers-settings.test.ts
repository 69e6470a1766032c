// MQTT 5 Subscription Identifiers (§3.3.4, §3.8.2.1.2): a PUBLISH carries the identifiers of every
// matching subscription, kept with a persistent session; Request Response Information → Response
// Information; a QoS 2 delivery sent again after a reconnect before its PUBREC keeps its packet id
// [MQTT-4.4.0-1]; and the Receive Maximum and Server Keep Alive settings (mqtt.receive_maximum,
// mqtt.server_keep_alive; --mqtt-receive-maximum, --mqtt-server-keep-alive; startBroker).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { IPublishPacket, Packet } from "mqtt-packet";
import { loadConfig } from "../../src/config/load-config.js";
import { readRabbitConf } from "../../src/config/rabbitmq-conf.js";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { rawMqtt, useMqttClients } from "../helpers/mqtt-client.js";

const publishes = (ps: Packet[]): IPublishPacket[] => ps.filter((p): p is IPublishPacket => p.cmd === "publish");

describe("MQTT 5 subscription identifiers, response information, QoS 2 resend ids", () => {
  let broker: TestBroker;
  const mqtt = useMqttClients(() => `mqtt://127.0.0.1:${broker.mqttPort}`, { protocolVersion: 5 });
  before(async () => {
    broker = await startTestBroker({ mqttPort: 0 });
  });
  after(() => broker.close());

  it("a PUBLISH carries the identifiers of every matching subscription of its queue; they last with the session", async () => {
    const opts = { clientId: "sid-sub", clean: false, properties: { sessionExpiryInterval: 60 } };
    const sub = await mqtt.open(opts);
    await sub.client.subscribeAsync("sid/#", { qos: 1, properties: { subscriptionIdentifier: 1 } });
    await sub.client.subscribeAsync("sid/a", { qos: 1, properties: { subscriptionIdentifier: 268_435_455 } });
    await sub.client.subscribeAsync("sid/+", { qos: 0 });
    await sub.client.subscribeAsync("$share/sidg/sid/b", { qos: 0, properties: { subscriptionIdentifier: 9 } });
    const pub = await mqtt.open({ clientId: "sid-pub" });
    await pub.client.publishAsync("sid/a", "a", { qos: 1 });
    await pub.client.publishAsync("sid/b", "b", { qos: 1 });
    const got = await sub.waitFor(5);
    const ids = (r: (typeof got)[number]) => [r.topic, r.packet.qos, [r.packet.properties?.subscriptionIdentifier ?? []].flat().sort((x, y) => x - y)];
    assert.deepEqual(got.map(ids).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))), [
      ["sid/a", 0, []],
      ["sid/a", 1, [1, 268_435_455]],
      ["sid/b", 0, []],
      ["sid/b", 0, [9]],
      ["sid/b", 1, [1]],
    ]);
    await sub.client.endAsync();
    const back = await mqtt.open(opts);
    assert.equal(back.connack?.sessionPresent, true);
    await pub.client.publishAsync("sid/a", "again", { qos: 1 });
    const again = await back.waitFor(2);
    const q1 = again.find((r) => r.packet.qos === 1);
    assert.deepEqual([q1?.packet.properties?.subscriptionIdentifier].flat().sort(), [1, 268_435_455]);
  });

  it("answers Request Response Information with Response Information, and only then", async () => {
    const asked = await mqtt.open({ clientId: "rri-yes", properties: { requestResponseInformation: true } });
    assert.equal(asked.connack?.properties?.responseInformation, "response/rri-yes/");
    const not = await mqtt.open({ clientId: "rri-no" });
    assert.equal(not.connack?.properties?.responseInformation, undefined);
  });

  it("a QoS 2 delivery sent again after a reconnect before PUBREC keeps its packet id, with DUP", async () => {
    const connect = { clientId: "resend-id", clean: false, properties: { sessionExpiryInterval: 60 } };
    const first = await rawMqtt(broker.mqttPort!, connect);
    first.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "resend/t", qos: 2 }] });
    await first.until((ps) => ps.some((p) => p.cmd === "suback"));
    const pub = await mqtt.open({ clientId: "resend-pub" });
    for (const body of ["done", "held1", "held2"]) await pub.client.publishAsync("resend/t", body, { qos: 2 });
    await first.until((ps) => publishes(ps).length === 3);
    const sent = publishes(first.packets);
    // The first exchange completes; the other two get no PUBREC.
    first.send({ cmd: "pubrec", messageId: sent[0]!.messageId! });
    await first.until((ps) => ps.some((p) => p.cmd === "pubrel"));
    first.send({ cmd: "pubcomp", messageId: sent[0]!.messageId! });
    const heldIds = sent.slice(1).map((p) => [p.payload.toString(), p.messageId]);
    first.close();
    await first.closed;
    const second = await rawMqtt(broker.mqttPort!, { ...connect, clean: false });
    await second.until((ps) => publishes(ps).length === 2);
    const again = publishes(second.packets);
    assert.deepEqual(again.map((p) => [p.payload.toString(), p.messageId]), heldIds, "the same ids");
    assert.ok(again.every((p) => p.dup && p.qos === 2));
    // A new delivery gets an id none of those holds.
    await pub.client.publishAsync("resend/t", "new", { qos: 2 });
    await second.until((ps) => publishes(ps).length === 3);
    const fresh = publishes(second.packets)[2]!;
    assert.ok(!heldIds.some(([, id]) => id === fresh.messageId), `fresh id ${fresh.messageId}`);
    second.close();
  });
});

describe("MQTT Receive Maximum and Server Keep Alive settings", () => {
  let broker: TestBroker;
  before(async () => {
    broker = await startTestBroker({ mqttPort: 0, mqttReceiveMaximum: 3, mqttServerKeepAlive: 0 });
  });
  after(() => broker.close());

  it("announces and enforces the configured Receive Maximum; a keep-alive server cap of 0 leaves the client's", async () => {
    const raw = await rawMqtt(broker.mqttPort!, { clientId: "recv3", keepalive: 600 });
    const connack = raw.packets.find((p) => p.cmd === "connack");
    assert.ok(connack && connack.cmd === "connack");
    assert.equal(connack.properties?.receiveMaximum, 3);
    assert.equal(connack.properties?.serverKeepAlive, undefined);
    for (let id = 1; id <= 4; id++) raw.send({ cmd: "publish", topic: "recv3/t", payload: Buffer.from("m"), qos: 2, messageId: id, dup: false, retain: false });
    await raw.until((ps) => ps.some((p) => p.cmd === "disconnect" && p.reasonCode === 0x93));
    await raw.closed;
  });

  it("reads the settings from the command line, the environment and rabbitmq.conf, and refuses a Receive Maximum out of range", () => {
    const d = loadConfig([], {});
    assert.equal(d.mqttReceiveMaximum, 1024);
    assert.equal(d.mqttServerKeepAlive, 60);
    const c = loadConfig(["--mqtt-receive-maximum", "100", "--mqtt-server-keep-alive", "30"], {});
    assert.equal(c.mqttReceiveMaximum, 100);
    assert.equal(c.mqttServerKeepAlive, 30);
    assert.equal(loadConfig([], { CONEY_MQTT_RECEIVE_MAXIMUM: "7" }).mqttReceiveMaximum, 7);
    assert.throws(() => loadConfig(["--mqtt-receive-maximum", "0"], {}), /between 1 and 65535/);
    assert.throws(() => loadConfig(["--mqtt-receive-maximum", "65536"], {}), /between 1 and 65535/);
    const conf = readRabbitConf(["mqtt.receive_maximum = 50", "mqtt.server_keep_alive = 120"].join("\n"), { loopbackUsers: ["guest"] });
    assert.deepEqual(conf.settings, { mqttReceiveMaximum: 50, mqttServerKeepAlive: 120 });
  });
});
