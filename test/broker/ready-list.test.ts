import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ReadyList } from "../../src/broker/queue/ready-list.js";
import type { QueueEntry } from "../../src/broker/queue/queue-entry.js";
import type { Message } from "../../src/broker/message.js";

const entry = (seq: number): QueueEntry => ({
  message: { body: Buffer.from("x"), bodySize: 1 } as Message,
  seq,
  redelivered: false,
  deliveryCount: 0,
  returns: 0,
  expiresAt: 0,
});

describe("ready list", () => {
  it("serves in order and puts requeued entries back at their original positions", () => {
    const r = new ReadyList();
    for (let i = 1; i <= 6; i++) r.push(entry(i));
    const taken = [r.shift()!, r.shift()!, r.shift()!, r.shift()!];
    r.requeue([taken[2]!]); // seq 3
    r.requeue([taken[0]!, taken[3]!]); // seqs 1, 4
    const order: number[] = [];
    for (let e = r.shift(); e; e = r.shift()) order.push(e.seq);
    assert.deepEqual(order, [1, 3, 4, 5, 6]);
    assert.equal(r.bytes, 0);
  });

  it("grows past its initial capacity and clears", () => {
    const r = new ReadyList();
    for (let i = 1; i <= 1000; i++) r.push(entry(i));
    assert.equal(r.length, 1000);
    assert.equal(r.bytes, 1000);
    assert.equal(r.clear().length, 1000);
    assert.equal(r.length, 0);
  });
});
