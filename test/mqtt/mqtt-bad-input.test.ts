// Bad MQTT input over a raw TCP socket: MQTT's rule is to close the connection. Each case checks
// that the offending connection is closed and that a well-behaved client on the same broker is
// not disturbed; also the CONNACK codes a raw client gets for an unknown protocol level and a
// missing client id, and the keep-alive deadline.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect as tcpConnect } from "node:net";
import { generate, parser, type Packet } from "mqtt-packet";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { connectMqtt, sleep, type TestMqttClient } from "../helpers/mqtt-client.js";

interface RawOutcome {
  readonly packets: Packet[];
  readonly closed: boolean;
  readonly closedAfterMs: number;
}

/** Writes `chunks` in order and reports what came back until the broker closes (or `waitMs` passes). */
function raw(port: number, chunks: Buffer[], waitMs = 3000): Promise<RawOutcome> {
  return new Promise((resolve, reject) => {
    const packets: Packet[] = [];
    const p = parser({ protocolVersion: 4 });
    p.on("packet", (packet: Packet) => packets.push(packet));
    const started = Date.now();
    const socket = tcpConnect(port, "127.0.0.1", () => {
      for (const c of chunks) socket.write(c);
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ packets, closed: false, closedAfterMs: -1 });
    }, waitMs);
    socket.on("data", (d) => p.parse(d));
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ packets, closed: true, closedAfterMs: Date.now() - started });
    });
  });
}

const connectPacket = (clientId: string, extra: Partial<Extract<Packet, { cmd: "connect" }>> = {}): Buffer =>
  generate({ cmd: "connect", protocolId: "MQTT", protocolVersion: 4, clean: true, clientId, keepalive: 0, username: "guest", password: Buffer.from("guest"), ...extra });

describe("MQTT bad input", () => {
  let broker: TestBroker;
  let bystander: TestMqttClient;

  before(async () => {
    // A small message size limit, so an oversize packet is cheap to send (the limit is it + 64 KiB).
    broker = await startTestBroker({ mqttPort: 0, maxMessageSize: 4096 });
    bystander = await connectMqtt(`mqtt://127.0.0.1:${broker.mqttPort}`, { clientId: "bystander" });
    await bystander.client.subscribeAsync("bystander/t", { qos: 1 });
  });
  after(async () => {
    await bystander.client.endAsync(true);
    await broker.close();
  });

  /** The well-behaved client still publishes and receives. */
  async function bystanderUndisturbed(): Promise<void> {
    const before = bystander.received.length;
    await bystander.client.publishAsync("bystander/t", "still here", { qos: 1 });
    await bystander.waitFor(before + 1);
    assert.equal(bystander.client.connected, true);
  }

  it("closes a connection whose first packet is not CONNECT", async () => {
    const out = await raw(broker.mqttPort!, [generate({ cmd: "pingreq" })]);
    assert.equal(out.closed, true);
    assert.deepEqual(out.packets, []);
    await bystanderUndisturbed();
  });

  it("closes a connection that sends a second CONNECT", async () => {
    const out = await raw(broker.mqttPort!, [connectPacket("twice"), connectPacket("twice")]);
    assert.equal(out.closed, true);
    assert.deepEqual(out.packets.map((p) => p.cmd), ["connack"]);
    assert.equal(broker.broker.connections.list().some((c) => c.info().clientProperties["client_id"] === "twice"), false);
    await bystanderUndisturbed();
  });

  it("closes a connection on a malformed packet: a reserved packet type, and a remaining length over four bytes", async () => {
    const reserved = await raw(broker.mqttPort!, [connectPacket("malformed-1"), Buffer.from([0x00, 0x00])]);
    assert.equal(reserved.closed, true);
    const badLength = await raw(broker.mqttPort!, [connectPacket("malformed-2"), Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0x01])]);
    assert.equal(badLength.closed, true);
    const garbage = await raw(broker.mqttPort!, [Buffer.from("GET / HTTP/1.1\r\n\r\n")]);
    assert.equal(garbage.closed, true);
    await bystanderUndisturbed();
  });

  it("closes a connection that publishes to a topic with a wildcard, and routes nothing", async () => {
    const publishedBefore = broker.broker.stats.publish;
    const out = await raw(broker.mqttPort!, [connectPacket("wild"), generate({ cmd: "publish", topic: "bystander/#", payload: Buffer.from("x"), qos: 0, dup: false, retain: false })]);
    assert.equal(out.closed, true);
    assert.equal(broker.broker.stats.publish, publishedBefore);
    await bystanderUndisturbed();
  });

  it("answers CONNACK 1 to an unknown protocol level and 2 to an empty client id with a persistent session", async () => {
    const v6 = connectPacket("v6");
    // Byte 8 is the protocol level after the fixed header (2 bytes) and the "MQTT" string (6 bytes).
    v6[8] = 6;
    const level = await raw(broker.mqttPort!, [v6]);
    assert.equal(level.closed, true);
    assert.equal((level.packets[0] as { returnCode?: number }).returnCode, 1);
    // mqtt-packet refuses to write this packet: clear the clean-session flag (byte 9, bit 1) by hand.
    const persistentNoId = connectPacket("");
    persistentNoId[9] = persistentNoId[9]! & ~0x02;
    const noId = await raw(broker.mqttPort!, [persistentNoId]);
    assert.equal(noId.closed, true);
    assert.equal((noId.packets[0] as { returnCode?: number }).returnCode, 2);
  });

  /** A PUBLISH (QoS 0) whose topic is these bytes. */
  const publishWithTopicBytes = (topic: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from([0, topic.length]), topic, Buffer.from("x")]);
    return Buffer.concat([Buffer.from([0x30, body.length]), body]);
  };

  it("closes a connection that sends a topic or a filter that is not well-formed UTF-8, and routes nothing", async () => {
    const publishedBefore = broker.broker.stats.publish;
    // "bystander/t" with a truncated two-byte sequence inside, then a lone continuation byte.
    for (const bad of [Buffer.from([0x62, 0x79, 0xc3, 0x2f, 0x74]), Buffer.from([0x62, 0x80])]) {
      const out = await raw(broker.mqttPort!, [connectPacket("bad-utf8"), publishWithTopicBytes(bad)]);
      assert.equal(out.closed, true);
    }
    assert.equal(broker.broker.stats.publish, publishedBefore);
    const filter = Buffer.from([0x61, 0x2f, 0xed, 0xa0, 0x80]); // an encoded surrogate: ill-formed
    const body = Buffer.concat([Buffer.from([0, 1, 0, filter.length]), filter, Buffer.from([1])]);
    const out = await raw(broker.mqttPort!, [connectPacket("bad-utf8-sub"), Buffer.concat([Buffer.from([0x82, body.length]), body])]);
    assert.equal(out.closed, true);
    assert.deepEqual(out.packets.map((p) => p.cmd), ["connack"], "no SUBACK");
    assert.equal(broker.broker.vhost("/").queues.has("mqtt-subscription-bad-utf8-subqos1"), false);
    // U+FFFD itself, well-formed, is a valid character.
    const fine = await raw(broker.mqttPort!, [connectPacket("utf8-ok"), publishWithTopicBytes(Buffer.from("t/\uFFFD"))], 300);
    assert.equal(fine.closed, false);
    await bystanderUndisturbed();
  });

  it("closes a connection that sends a packet over the size limit (MQTT 5: DISCONNECT 0x95), with nothing half-stored", async () => {
    const c = await connectMqtt(`mqtt://127.0.0.1:${broker.mqttPort}`, { clientId: "too-big", protocolVersion: 5 });
    const disconnect = new Promise<number | undefined>((resolve) => c.client.once("disconnect", (p) => resolve(p.reasonCode)));
    c.client.publish("bystander/t", Buffer.alloc(200_000, 7), { qos: 1, retain: true });
    assert.equal(await disconnect, 0x95);
    assert.equal(broker.broker.vhost("/").queues.get("mqtt-subscription-bystanderqos1")?.messageCount, 0);
    const probe = await connectMqtt(`mqtt://127.0.0.1:${broker.mqttPort}`, { clientId: "probe" });
    await probe.client.subscribeAsync("bystander/t", { qos: 1 });
    await sleep(100);
    assert.equal(probe.received.length, 0, "no retained message was stored");
    await probe.client.endAsync();
    await bystanderUndisturbed();
  });

  it("speaks MQTT 3.1 (protocol name MQIsdp, level 3)", async () => {
    const c = await connectMqtt(`mqtt://127.0.0.1:${broker.mqttPort}`, { clientId: "old-timer", protocolId: "MQIsdp", protocolVersion: 3 });
    await c.client.subscribeAsync("v31/t", { qos: 1 });
    await c.client.publishAsync("v31/t", "from 3.1", { qos: 1 });
    const [r] = await c.waitFor(1);
    assert.equal(r!.payload.toString(), "from 3.1");
    assert.equal(broker.broker.connections.list().find((x) => x.info().clientProperties["client_id"] === "old-timer")?.info().protocol, "MQTT 3.1.0");
    await c.client.endAsync();
  });

  it("closes a connection silent for 1.5 × its keep-alive", async () => {
    const out = await raw(broker.mqttPort!, [connectPacket("sleepy", { keepalive: 1 })], 5000);
    assert.equal(out.closed, true);
    assert.ok(out.closedAfterMs >= 1400 && out.closedAfterMs < 3500, `closed after ${out.closedAfterMs} ms`);
  });
});
