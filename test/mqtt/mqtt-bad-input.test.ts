// Bad MQTT input over a raw TCP socket: MQTT's rule is to close the connection. Each case checks
// that the offending connection is closed and that a well-behaved client on the same broker is
// not disturbed; also the CONNACK codes a raw client gets for an unknown protocol level and a
// missing client id, and the keep-alive deadline.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect as tcpConnect } from "node:net";
import { generate, parser, type Packet } from "mqtt-packet";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { connectMqtt, type TestMqttClient } from "../helpers/mqtt-client.js";

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
    broker = await startTestBroker({ mqttPort: 0 });
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

  it("closes a connection that publishes at QoS 2 (not supported, as in RabbitMQ)", async () => {
    const out = await raw(broker.mqttPort!, [connectPacket("qos2"), generate({ cmd: "publish", topic: "bystander/t", payload: Buffer.from("x"), qos: 2, messageId: 1, dup: false, retain: false })]);
    assert.equal(out.closed, true);
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

  it("closes a connection silent for 1.5 × its keep-alive", async () => {
    const out = await raw(broker.mqttPort!, [connectPacket("sleepy", { keepalive: 1 })], 5000);
    assert.equal(out.closed, true);
    assert.ok(out.closedAfterMs >= 1400 && out.closedAfterMs < 3500, `closed after ${out.closedAfterMs} ms`);
  });
});
