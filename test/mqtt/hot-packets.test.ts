// The read path for plain PUBLISH and PUBACK packets (src/mqtt/hot-packets.ts) reads exactly what
// mqtt-packet would, and leaves everything else — other packets, properties, partial packets,
// malformed ones — to mqtt-packet, at the first byte it does not take.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { generate, parser, type IPublishPacket, type Packet } from "mqtt-packet";
import { readHotPackets, type HotPacketSink } from "../../src/mqtt/hot-packets.js";
import { disconnectExpiry } from "../../src/mqtt/disconnect-expiry.js";

function sink(): HotPacketSink & { got: Array<IPublishPacket | number> } {
  const got: Array<IPublishPacket | number> = [];
  return { got, readingHot: true, hotPublish: (p) => got.push(p), hotPuback: (id) => got.push(id) };
}

/** What mqtt-packet parses from the same bytes. */
function parsed(bytes: Buffer, protocolVersion: number): Packet[] {
  const out: Packet[] = [];
  const p = parser({ protocolVersion });
  p.on("packet", (x: Packet) => out.push(x));
  p.parse(bytes);
  return out;
}

describe("hot packets", () => {
  for (const protocolVersion of [4, 5]) {
    it(`reads PUBLISH (QoS 0/1, dup, retain, empty and large payloads) and PUBACK as mqtt-packet does (version ${protocolVersion})`, () => {
      const opts = { protocolVersion };
      const packets: Packet[] = [
        { cmd: "publish", topic: "a/b", payload: Buffer.from("hello"), qos: 0, dup: false, retain: false },
        { cmd: "publish", topic: "sensors/é/temp", payload: Buffer.alloc(70_000, 7), qos: 1, messageId: 513, dup: true, retain: true },
        { cmd: "publish", topic: "t", payload: Buffer.alloc(0), qos: 1, messageId: 1, dup: false, retain: false },
        { cmd: "puback", messageId: 65535 },
      ];
      const bytes = Buffer.concat(packets.map((p) => generate(p, opts)));
      const s = sink();
      assert.equal(readHotPackets(bytes, protocolVersion === 5, 1 << 20, s), bytes.length);
      const expected = parsed(bytes, protocolVersion);
      assert.equal(s.got.length, expected.length);
      s.got.forEach((g, i) => {
        const e = expected[i]!;
        if (typeof g === "number") {
          assert.equal(e.cmd, "puback");
          assert.equal(g, (e as { messageId: number }).messageId);
          return;
        }
        const ep = e as IPublishPacket;
        assert.deepEqual([g.topic, g.qos, g.dup, g.retain, g.messageId], [ep.topic, ep.qos, ep.dup, ep.retain, ep.messageId]);
        assert.ok(Buffer.from(g.payload as Buffer).equals(Buffer.from(ep.payload as Buffer)));
        // Not a copy: a view of the chunk.
        assert.equal((g.payload as Buffer).buffer, bytes.buffer);
      });
    });
  }

  it("stops at the first packet it does not take, so mqtt-packet reads the rest", () => {
    const v4 = { protocolVersion: 4 };
    const v5 = { protocolVersion: 5 };
    const plain = generate({ cmd: "publish", topic: "x", payload: Buffer.from("1"), qos: 0, dup: false, retain: false }, v4);
    const cases: Array<[string, Buffer, boolean]> = [
      ["a PINGREQ", generate({ cmd: "pingreq" }, v4), false],
      ["a SUBSCRIBE", generate({ cmd: "subscribe", messageId: 3, subscriptions: [{ topic: "a", qos: 1 }] }, v4), false],
      ["a v5 PUBLISH with properties", generate({ cmd: "publish", topic: "x", payload: Buffer.from("1"), qos: 0, dup: false, retain: false, properties: { contentType: "text/plain" } }, v5), true],
      ["a v5 PUBACK with a reason code", generate({ cmd: "puback", messageId: 4, reasonCode: 0x10 }, v5), true],
      ["QoS 3", Buffer.from([0x36, 3, 0, 1, 0x78]), false],
      ["a packet id 0", Buffer.from([0x32, 5, 0, 1, 0x78, 0, 0]), false],
      ["a bad UTF-8 topic", Buffer.from([0x30, 4, 0, 2, 0xc3, 0x28]), false],
      ["a partial packet", plain.subarray(0, plain.length - 1), false],
      ["a remaining length over 4 bytes", Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0x01]), false],
    ];
    const plain5 = generate({ cmd: "publish", topic: "x", payload: Buffer.from("1"), qos: 0, dup: false, retain: false }, v5);
    for (const [what, tail, v5Reader] of cases) {
      const head = v5Reader ? plain5 : plain;
      const bytes = Buffer.concat([head, tail]);
      const s = sink();
      assert.equal(readHotPackets(bytes, v5Reader, 1 << 20, s), head.length, what);
      assert.equal(s.got.length, 1, what);
    }
    const s = sink();
    assert.equal(readHotPackets(plain, false, plain.length - 1, s), 0, "a packet larger than allowed is left to the size check");
  });

  it("stops when a packet's handler stops reading (the connection closed or held)", () => {
    const bytes = Buffer.concat([1, 2, 3].map((id) => generate({ cmd: "puback", messageId: id }, { protocolVersion: 4 })));
    const got: number[] = [];
    const s: HotPacketSink = { get readingHot() { return got.length < 2; }, hotPublish: () => {}, hotPuback: (id) => got.push(id) };
    assert.equal(readHotPackets(bytes, false, 1 << 20, s), 8);
    assert.deepEqual(got, [1, 2]);
  });

  it("MQTT 5 DISCONNECT session expiry: unchanged, end, change (capped), or a protocol error after none", () => {
    assert.deepEqual(disconnectExpiry(300, undefined), { kind: "unchanged" });
    assert.deepEqual(disconnectExpiry(300, 300), { kind: "unchanged" });
    assert.deepEqual(disconnectExpiry(300, 0), { kind: "end" });
    assert.deepEqual(disconnectExpiry(300, 7200), { kind: "change", seconds: 7200 });
    assert.deepEqual(disconnectExpiry(300, 10_000_000), { kind: "change", seconds: 86_400 });
    assert.deepEqual(disconnectExpiry(0, 60), { kind: "protocol-error" });
    assert.deepEqual(disconnectExpiry(0, 0), { kind: "unchanged" });
  });
});
