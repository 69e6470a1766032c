// The record codec: round trip, and what a torn or corrupted record reads as.
import { joinBody } from "../../src/broker/values/message-body.js";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMessage } from "../../src/broker/message.js";
import { encodeBasicProperties } from "../../src/amqp/codec/generated.js";
import { encodeRecordHead, fillRecordChecksum, queueKey, readRecord, recordTail } from "../../src/store/message-record.js";

function record(): Buffer {
  const props = encodeBasicProperties({ deliveryMode: 2, contentType: "text/plain", headers: { a: 1 } });
  const m = createMessage("ex", "rk.é", { deliveryMode: 2 }, props, Buffer.from("hello body"), 1234);
  const head = encodeRecordHead(Buffer.from(queueKey("/", "q")), m, props, 42);
  const pieces = [head, props, joinBody(m.body)];
  fillRecordChecksum(pieces, 0, pieces.length);
  return Buffer.concat(pieces);
}

describe("message record codec", () => {
  it("reads back what it wrote, as slices of the buffer", () => {
    const buf = record();
    const r = readRecord(buf, 0);
    assert.equal(r.status, "ok");
    if (r.status !== "ok") return;
    assert.equal(r.next, buf.length);
    assert.equal(r.record.key, "/\u0000q");
    assert.equal(r.record.exchange, "ex");
    assert.equal(r.record.routingKey, "rk.é");
    assert.equal(r.record.storeSeq, 42);
    assert.equal(r.record.publishedAt, 1234);
    assert.equal(r.record.body.toString(), "hello body");
    assert.equal((r.record.body as Buffer).buffer, buf.buffer, "the body is not copied");
    assert.equal(readRecord(buf, buf.length).status, "end");
  });

  it("reports a record cut short as torn", () => {
    const buf = record();
    for (const cut of [3, 8, buf.length - 1]) assert.equal(readRecord(buf.subarray(0, cut), 0).status, "torn");
  });

  it("reports a flipped byte as corrupt and says where the next record starts", () => {
    const buf = record();
    buf[buf.length - 3]! ^= 0xff;
    const r = readRecord(buf, 0);
    assert.equal(r.status, "corrupt");
    if (r.status === "corrupt") assert.equal(r.next, buf.length);
  });

  it("keeps a message's original encoding; a body within it is written once, one outside after it", () => {
    const props = encodeBasicProperties({ deliveryMode: 2 });
    const payload = Buffer.from("HEADER|the body|FOOTER");
    const inside = payload.subarray(7, 15);
    const original = { format: "amqp-1.0", parts: [Buffer.from("annotations|"), payload] };
    for (const [body, written] of [
      [inside, 12 + payload.length],
      [Buffer.from("elsewhere"), 12 + payload.length + 9],
    ] as const) {
      const m = createMessage("ex", "rk", { deliveryMode: 2 }, props, body, 1, null, original);
      const head = encodeRecordHead(Buffer.from(queueKey("/", "q")), m, props, 7);
      const tail = recordTail(m);
      assert.equal(tail.reduce((n, b) => n + b.length, 0), written);
      const pieces = [head, props, ...tail];
      fillRecordChecksum(pieces, 0, pieces.length);
      const r = readRecord(Buffer.concat(pieces), 0);
      assert.equal(r.status, "ok");
      if (r.status !== "ok") return;
      assert.equal(r.record.persistent, true);
      assert.equal(r.record.body.toString(), body.toString());
      assert.equal(r.record.original?.format, "amqp-1.0");
      assert.equal(Buffer.concat(r.record.original!.parts).toString(), "annotations|HEADER|the body|FOOTER");
    }
  });

  it("writes a body of parts that lie within the original as their ranges, once; a body with a part outside after it", () => {
    const props = encodeBasicProperties({ deliveryMode: 2 });
    const payload = Buffer.from("HEADER|first|second|FOOTER");
    const original = { format: "amqp-1.0", parts: [Buffer.from("annotations|"), payload] };
    const within = [payload.subarray(7, 12), payload.subarray(13, 19)];
    for (const [body, written, readBack] of [
      // Within: only the original is written; the body reads back as its two parts.
      [within, 12 + payload.length, ["first", "second"]],
      // A part outside: the body is written after the original and reads back as one slice.
      [[payload.subarray(7, 12), Buffer.from("outside")], 12 + payload.length + 5 + 7, ["firstoutside"]],
    ] as const) {
      const m = createMessage("ex", "rk", { deliveryMode: 2 }, props, body, 1, null, original);
      const tail = recordTail(m);
      assert.equal(tail.reduce((n, b) => n + b.length, 0), written);
      const pieces = [encodeRecordHead(Buffer.from(queueKey("/", "q")), m, props, 7), props, ...tail];
      fillRecordChecksum(pieces, 0, pieces.length);
      const r = readRecord(Buffer.concat(pieces), 0);
      assert.equal(r.status, "ok");
      if (r.status !== "ok") return;
      const parts: readonly Buffer[] = Array.isArray(r.record.body) ? r.record.body : [r.record.body as Buffer];
      assert.deepEqual(parts.map(String), readBack);
      assert.equal(Buffer.concat(r.record.original!.parts).toString(), "annotations|HEADER|first|second|FOOTER");
    }
  });

  it("writes a body in parts once when its parts run on through the original's (a 1.0 message of several transfers)", () => {
    const props = encodeBasicProperties({ deliveryMode: 2 });
    // Three transfers' payloads, each in memory of its own: "HEAD|the bo", "dy in thr", "ee parts|FOOT".
    const t1 = Buffer.from("HEAD|the bo");
    const t2 = Buffer.from("dy in thr");
    const t3 = Buffer.from("ee parts|FOOT");
    const original = { format: "amqp-1.0", parts: [Buffer.from("annotations|"), t1, t2, t3] };
    const runsOn = [t1.subarray(5), t2, t3.subarray(0, 8)];
    const gap = [t1.subarray(5), t3.subarray(0, 8)];
    const outside = [Buffer.from("else"), Buffer.from("where")];
    for (const [body, once] of [
      [runsOn, true],
      // A gap between them: each part lies within, so the body is written as its ranges (once too).
      [gap, true],
      [outside, false],
    ] as const) {
      const m = createMessage("ex", "rk", { deliveryMode: 2 }, props, body, 1, null, original);
      const head = encodeRecordHead(Buffer.from(queueKey("/", "q")), m, props, 7);
      const tail = recordTail(m);
      const originalBytes = 12 + t1.length + t2.length + t3.length;
      assert.equal(tail.reduce((n, b) => n + b.length, 0), once ? originalBytes : originalBytes + m.bodySize);
      const pieces = [head, props, ...tail];
      fillRecordChecksum(pieces, 0, pieces.length);
      const r = readRecord(Buffer.concat(pieces), 0);
      assert.equal(r.status, "ok");
      if (r.status !== "ok") return;
      assert.equal(joinBody(r.record.body).toString(), joinBody(body).toString());
    }
  });
});
