// MQTT connections as the management API shows them (protocol "MQTT 3.1.1" / "MQTT 5-0" /
// "Web MQTT …", the client id in client_properties) and closes them (DELETE /api/connections),
// and MQTT over WebSocket at /ws with the mqtt subprotocol.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { connectMqtt, waitUntil, type TestMqttClient } from "../helpers/mqtt-client.js";

const AUTH = { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` };

interface ConnectionRecord {
  name: string;
  protocol: string;
  user: string;
  vhost: string;
  channels: number;
  client_properties: Record<string, unknown>;
}

describe("MQTT in the management API, and over WebSocket", () => {
  let broker: TestBroker;
  const clients: TestMqttClient[] = [];

  before(async () => {
    broker = await startTestBroker({ mqttPort: 0, webMqttPort: 0 });
  });
  after(async () => {
    for (const c of clients) await c.client.endAsync(true).catch(() => {});
    await broker.close();
  });

  async function connections(): Promise<ConnectionRecord[]> {
    const res = await fetch(`${broker.httpUrl}/api/connections`, { headers: AUTH });
    assert.equal(res.status, 200);
    return (await res.json()) as ConnectionRecord[];
  }

  it("lists MQTT 3.1.1 and MQTT 5 connections with their client ids, and DELETE closes one (MQTT 5 hears 0x98)", async () => {
    const v4 = await connectMqtt(`mqtt://127.0.0.1:${broker.mqttPort}`, { clientId: "api-v4" });
    const v5 = await connectMqtt(`mqtt://127.0.0.1:${broker.mqttPort}`, { clientId: "api-v5", protocolVersion: 5 });
    clients.push(v4, v5);
    const list = await connections();
    const r4 = list.find((c) => c.client_properties["client_id"] === "api-v4");
    const r5 = list.find((c) => c.client_properties["client_id"] === "api-v5");
    assert.equal(r4?.protocol, "MQTT 3.1.1");
    assert.equal(r5?.protocol, "MQTT 5-0");
    assert.equal(r4?.user, "guest");
    assert.equal(r4?.vhost, "/");
    assert.equal(r4?.channels, 1, "the session's channel (RabbitMQ consumes MQTT subscriptions on channel 1)");

    const disconnect = new Promise<number | undefined>((resolve) => v5.client.once("disconnect", (p) => resolve(p.reasonCode)));
    const res = await fetch(`${broker.httpUrl}/api/connections/${encodeURIComponent(r5!.name)}`, { method: "DELETE", headers: AUTH });
    assert.equal(res.status, 204);
    assert.equal(await disconnect, 0x98);
    await waitUntil(() => !broker.broker.connections.get(r5!.name));
    assert.equal(v4.client.connected, true);
  });

  it("serves MQTT over WebSocket at /ws: a browser-style client and a TCP client exchange messages", async () => {
    const ws = await connectMqtt(`ws://127.0.0.1:${broker.webMqttPort}/ws`, { clientId: "ws-client" });
    const tcp = await connectMqtt(`mqtt://127.0.0.1:${broker.mqttPort}`, { clientId: "tcp-client" });
    clients.push(ws, tcp);
    await ws.client.subscribeAsync("dash/#", { qos: 1 });
    await tcp.client.publishAsync("dash/cpu", "42", { qos: 1 });
    const [r] = await ws.waitFor(1);
    assert.equal(r!.topic, "dash/cpu");
    assert.equal(r!.payload.toString(), "42");
    await tcp.client.subscribeAsync("cmd/+", { qos: 0 });
    await ws.client.publishAsync("cmd/reboot", "now", { qos: 0 });
    const [c] = await tcp.waitFor(1);
    assert.equal(c!.payload.toString(), "now");
    const record = (await connections()).find((x) => x.client_properties["client_id"] === "ws-client");
    assert.equal(record?.protocol, "Web MQTT 3.1.1");
  });

  it("answers 404 for other paths on the WebSocket port, and MQTT 5 works over WebSocket too", async () => {
    const res = await fetch(`http://127.0.0.1:${broker.webMqttPort}/other`);
    assert.equal(res.status, 404);
    const ws5 = await connectMqtt(`ws://127.0.0.1:${broker.webMqttPort}/ws`, { clientId: "ws5", protocolVersion: 5 });
    clients.push(ws5);
    await ws5.client.subscribeAsync("w5/t", { qos: 1 });
    await ws5.client.publishAsync("w5/t", "self", { qos: 1, properties: { contentType: "text/plain" } });
    const [r] = await ws5.waitFor(1);
    assert.equal(r!.packet.properties?.contentType, "text/plain");
  });

  it("MQTT 5's topic aliases and subscription options work over WebSocket as over TCP", async () => {
    const ws = await connectMqtt(`ws://127.0.0.1:${broker.webMqttPort}/ws`, { clientId: "ws-options", protocolVersion: 5, properties: { topicAliasMaximum: 4 } });
    clients.push(ws);
    assert.equal(ws.connack?.properties?.topicAliasMaximum, 16);
    await ws.client.subscribeAsync("wso/#", { qos: 1, nl: true });
    const tcp = await connectMqtt(`mqtt://127.0.0.1:${broker.mqttPort}`, { clientId: "ws-options-peer", protocolVersion: 5 });
    clients.push(tcp);
    await ws.client.publishAsync("wso/self", "not back to me", { qos: 1, properties: { topicAlias: 1 } });
    await tcp.client.publishAsync("wso/a", "first", { qos: 1 });
    await tcp.client.publishAsync("wso/a", "second", { qos: 1 });
    const got = await ws.waitFor(2);
    assert.deepEqual(got.map((r) => [r.topic, r.payload.toString()]), [["wso/a", "first"], ["wso/a", "second"]]);
    assert.equal(got[1]!.packet.properties?.topicAlias, 1, "the second delivery came by alias");
  });

  it("lists the MQTT listeners in /api/overview, and the protocol-listener health check finds them", async () => {
    const res = await fetch(`${broker.httpUrl}/api/overview`, { headers: AUTH });
    const overview = (await res.json()) as { listeners: Array<{ protocol: string; port: number }> };
    const protocols = overview.listeners.map((l) => `${l.protocol}:${l.port}`);
    assert.ok(protocols.includes(`mqtt:${broker.mqttPort}`), protocols.join(" "));
    assert.ok(protocols.includes(`http/web-mqtt:${broker.webMqttPort}`), protocols.join(" "));
    for (const name of ["mqtt", "mqtt3.1.1"]) {
      const health = await fetch(`${broker.httpUrl}/api/health/checks/protocol-listener/${name}`, { headers: AUTH });
      assert.equal(health.status, 200, name);
      assert.deepEqual(await health.json(), { status: "ok", protocol: "mqtt" });
    }
  });
});
