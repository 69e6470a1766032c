// MQTT 5 corners found by Eclipse paho.mqtt.testing's client_test5.py, with mqtt.js: Server Keep
// Alive lowers a keep-alive beyond the server's maximum (and leaves a smaller one alone), and the
// Payload Format Indicator reaches subscribers unaltered at every QoS (§3.3.2.3.2).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { useMqttClients } from "../helpers/mqtt-client.js";

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
});
