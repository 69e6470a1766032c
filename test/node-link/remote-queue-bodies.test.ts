// Bodies and properties through a queue led by another node, at volume: a client of node A publishes
// (confirmed) and consumes messages of every body size class the link treats differently (empty,
// small ones built into the link's slab, large ones referenced, frames spanning socket reads), so
// every turn fills several of the link's slabs both ways; each message must arrive whole, with its
// properties, in publish order.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import amqp from "amqplib";
import { eventually, withTimeout } from "../helpers/wait.js";
import { linkAToB, queueOnB, useTwoNodes } from "./two-nodes.js";

const SIZES = [0, 16, 700, 1023, 1024, 5000, 70_000];

function bodyOf(i: number): Buffer {
  const size = SIZES[i % SIZES.length]!;
  const b = Buffer.alloc(size, i % 251);
  if (size >= 4) b.writeUInt32BE(i, 0);
  return b;
}

describe("bodies through a queue led by another node", () => {
  const fx = useTwoNodes();

  it("delivers 1,400 messages of every size whole and in order, with their properties", async () => {
    const link = await linkAToB(fx);
    const { onB } = queueOnB(fx, link, "fwd-bodies");
    const conn = await amqp.connect(fx.a.amqpUrl);
    try {
      const pub = await conn.createConfirmChannel();
      const sub = await conn.createChannel();
      await sub.prefetch(300);
      const count = 1400;
      let next = 0;
      const done = new Promise<void>((resolve, reject) => {
        void sub.consume("fwd-bodies", (m) => {
          try {
            const i = next++;
            assert.ok(m !== null);
            assert.ok(m.content.equals(bodyOf(i)), `body of message ${i} (${m.content.length} bytes)`);
            assert.equal(m.properties.messageId, `m-${i}`);
            assert.equal(m.properties.headers?.["i"], i);
            assert.equal(m.fields.routingKey, "fwd-bodies");
            sub.ack(m);
            if (next === count) resolve();
          } catch (err) {
            reject(err as Error);
          }
        });
      });
      for (let i = 0; i < count; i++) pub.sendToQueue("fwd-bodies", bodyOf(i), { messageId: `m-${i}`, headers: { i }, contentType: i % 2 ? "a/b" : undefined });
      await pub.waitForConfirms();
      await withTimeout(done, 30_000, "every message consumed on A");
      await eventually(() => onB.messageCount === 0 && onB.unacked === 0, 5000, "every ack settled on B");
    } finally {
      await conn.close();
      link.close();
    }
  });
});
