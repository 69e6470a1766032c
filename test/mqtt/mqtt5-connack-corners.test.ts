// MQTT 5 corners found by Eclipse paho.mqtt.testing's client_test5.py, with mqtt.js: Server Keep
// Alive lowers a keep-alive beyond the server's maximum (and leaves a smaller one alone), and the
// Payload Format Indicator reaches subscribers unaltered at every QoS (§3.3.2.3.2); what is not
// built is refused with its own reason code (shared subscriptions 0x9E, subscription identifiers 0xA1).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { rawMqtt, useMqttClients } from "../helpers/mqtt-client.js";

describe("MQTT 5 Server Keep Alive and Payload Format Indicator", () => {
  let broker: TestBroker;
  const mqtt = useMqttClients(() => `mqtt://127.0.0.1:${broker.mqttPort}`, { protocolVersion: 5 });
  before(async () => {
    broker = await startTestBroker({ mqttPort: 0 });
  });
  after(() => broker.close());

  it("answers a keep-alive of 120 s with Server Keep Alive 60, and a keep-alive of 30 s with none", async () => {
    const long = await mqtt.open({ clientId: "ka-long", keepalive: 120 });
    assert.equal(long.connack?.properties?.serverKeepAlive, 60);
    const short = await mqtt.open({ clientId: "ka-short", keepalive: 30 });
    assert.equal(short.connack?.properties?.serverKeepAlive, undefined);
  });

  it("forwards the Payload Format Indicator at QoS 0, 1 and 2", async () => {
    const sub = await mqtt.open({ clientId: "pfi-sub" });
    await sub.client.subscribeAsync("pfi/t", { qos: 2 });
    const pub = await mqtt.open({ clientId: "pfi-pub" });
    for (const qos of [0, 1, 2] as const) await pub.client.publishAsync("pfi/t", "text", { qos, properties: { payloadFormatIndicator: true, contentType: "text/plain" } });
    await pub.client.publishAsync("pfi/t", "bytes", { qos: 1 });
    const got = await sub.waitFor(4);
    assert.deepEqual(got.map((r) => [r.packet.qos, r.packet.properties?.payloadFormatIndicator, r.packet.properties?.contentType]), [
      [0, true, "text/plain"],
      [1, true, "text/plain"],
      [2, true, "text/plain"],
      [1, undefined, undefined],
    ]);
  });

  it("refuses a shared subscription with SUBACK 0x9E (3.1.1: 0x80) and a subscription identifier with DISCONNECT 0xA1", async () => {
    for (const [protocolVersion, refused] of [[5, 0x9e], [4, 0x80]] as const) {
      const c = await rawMqtt(broker.mqttPort!, { clientId: `share${protocolVersion}`, protocolVersion });
      c.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "$share/g/sh/t", qos: 1 }, { topic: "sh/t", qos: 1 }] });
      await c.until((ps) => ps.some((p) => p.cmd === "suback"));
      const suback = c.packets.find((p) => p.cmd === "suback");
      assert.ok(suback && suback.cmd === "suback");
      assert.deepEqual(suback.granted, [refused, 1]);
      c.close();
    }
    const raw = await rawMqtt(broker.mqttPort!, { clientId: "subid", protocolVersion: 5 });
    raw.send({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "subid/t", qos: 1 }], properties: { subscriptionIdentifier: 7 } });
    await raw.until((ps) => ps.some((p) => p.cmd === "disconnect" && p.reasonCode === 0xa1));
    await raw.closed;
  });
});
