import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { PriorityReadyList } from "../../src/broker/queue/priority-ready-list.js";
import type { QueueEntry } from "../../src/broker/queue/queue-entry.js";
import type { Message } from "../../src/broker/message.js";

const entry = (seq: number, priority?: number): QueueEntry => ({
  message: { body: Buffer.from("xy"), bodySize: 2, properties: priority === undefined ? {} : { priority } } as Message,
  seq,
  redelivered: false,
  deliveryCount: 0,
  returns: 0,
  expiresAt: 0,
});

describe("priority ready list", () => {
  it("serves higher priorities first, FIFO within one, requeues in place, and counts bytes", () => {
    const r = new PriorityReadyList(3);
    r.push(entry(1));
    r.push(entry(2, 3));
    r.push(entry(3, 1));
    r.push(entry(4, 200)); // above max: counts as 3
    r.push(entry(5, 3));
    assert.equal(r.length, 5);
    assert.equal(r.bytes, 10);
    const a = r.shift()!;
    const b = r.shift()!;
    assert.deepEqual([a.seq, b.seq], [2, 4]);
    r.requeue([b, a]);
    const order: number[] = [];
    for (let e = r.shift(); e; e = r.shift()) order.push(e.seq);
    assert.deepEqual(order, [2, 4, 5, 3, 1]);
    assert.equal(r.bytes, 0);
    assert.equal(r.length, 0);
  });
});
