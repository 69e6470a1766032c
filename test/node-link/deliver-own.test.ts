// A message delivered back to the node that forwarded it travels as DELIVER_OWN (its link
// position, not its content: src/node-link/kept-forwards.ts) when both ends offer it. The node
// delivers the very message it kept, so its body must still be whole: A's AMQP read slabs are
// poisoned when they come back (0xdb), and they must come back once everything is acked and
// STORED (the kept messages' holds end). A node that does not offer it (a node from before the
// features byte) gets every delivery with its content, and messages B's own clients publish
// never go as DELIVER_OWN.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import amqp from "amqplib";
import { SlabPool } from "../../src/listeners/slab-pool.js";
import { LARGE_SLAB } from "../../src/listeners/slab-reads.js";
import { eventually } from "../helpers/wait.js";
import { linkAToB, queueOnB, useTwoNodes } from "./two-nodes.js";

/** Sizes the link and A's AMQP reads treat differently: empty, copied (< 256 B), leased, over one slab. */
const SIZES = [0, 16, 255, 300, 4096, 5000, 70_000];

function bodyOf(tag: number, i: number): Buffer {
  const b = Buffer.alloc(SIZES[i % SIZES.length]!, (i * 13 + tag) % 251);
  if (b.length >= 5) {
    b.writeUInt32BE(i, 0);
    b[4] = tag;
  }
  return b;
}

interface Checked {
  got(): number;
  failed(): Error | null;
}

/**
 * Consumes `queue` on a new channel of `conn` (prefetch `prefetch`), checking message `i` is
 * bodyOf(tag, i) with its properties; the first delivery of every seventh message is nacked back
 * to the queue (then redelivered after it, from B's copy).
 */
async function consume(conn: amqp.ChannelModel, queue: string, tag: number, prefetch: number): Promise<Checked> {
  const ch = await conn.createChannel();
  await ch.prefetch(prefetch);
  const seen = new Set<number>();
  let failure: Error | null = null;
  await ch.consume(queue, (m) => {
    try {
      assert.ok(m !== null);
      const i = Number(m.properties.messageId);
      assert.ok(m.content.equals(bodyOf(tag, i)), `${queue}: body of message ${i} (${m.content.length} bytes) intact`);
      assert.equal(m.properties.headers?.["i"], i);
      assert.equal(m.properties.contentType, "application/x-test");
      if (i % 7 === 3 && !m.fields.redelivered) return ch.nack(m, false, true);
      seen.add(i);
      ch.ack(m);
    } catch (err) {
      failure ??= err as Error;
    }
  });
  return { got: () => seen.size, failed: () => failure };
}

/**
 * Publishes `count` messages in batches of 200, each confirmed (and, given `paced`, consumed
 * by it) before the next: a paced consumer with room for a batch always waits when the next one
 * arrives, so its deliveries go as DELIVER_OWN however slow the machine.
 */
async function publish(pub: amqp.ConfirmChannel, exchange: string, key: string, tag: number, count: number, paced?: Checked): Promise<void> {
  for (let sent = 0; sent < count; ) {
    const end = Math.min(count, sent + 200);
    for (; sent < end; sent++) pub.publish(exchange, key, bodyOf(tag, sent), { messageId: String(sent), headers: { i: sent }, contentType: "application/x-test" });
    await pub.waitForConfirms();
    if (paced) await eventually(() => paced.failed() !== null || paced.got() === end, 20_000, `${end} consumed`);
  }
}

describe("DELIVER_OWN: a node's own forwarded messages delivered back by position", () => {
  const amqpSlabsA = new SlabPool({ slabBytes: LARGE_SLAB, maxFree: 64, poison: true });
  const fx = useTwoNodes({ amqpSlabsA });

  it("delivers A's own messages by position, whole, to consumers of two queues, and lets A's slabs go", async () => {
    const link = await linkAToB(fx);
    const { onB: q1 } = queueOnB(fx, link, "own-1");
    const { onB: q2 } = queueOnB(fx, link, "own-2");
    const conn = await amqp.connect(fx.a.amqpUrl);
    conn.on("error", () => {});
    try {
      const ch = await conn.createChannel();
      await ch.assertExchange("own-fan", "fanout", { durable: false });
      await ch.bindQueue("own-1", "own-fan", "");
      await ch.bindQueue("own-2", "own-fan", "");
      // One waits with room for a whole batch (its deliveries go as DELIVER_OWN), one with a small prefetch (most wait on B, then go with their content).
      const c1 = await consume(conn, "own-1", 1, 500);
      const c2 = await consume(conn, "own-2", 1, 5);
      const count = 1400;
      await publish(await conn.createConfirmChannel(), "own-fan", "", 1, count, c1);
      await eventually(() => c1.failed() !== null || c2.failed() !== null || (c1.got() === count && c2.got() === count), 30_000, "every message consumed from both queues");
      assert.equal(c1.failed(), null);
      assert.equal(c2.failed(), null);
      // own-1 had room for each message as it arrived: its first deliveries went by position (1,400; the bound leaves 200 spare).
      assert.ok(link.deliveredOwn >= count - 200, `own-1's deliveries went as DELIVER_OWN (${link.deliveredOwn} of ${2 * count} in all)`);
      await eventually(() => q1.messageCount + q1.unacked + q2.messageCount + q2.unacked === 0, 5000, "every ack settled on B");
      assert.ok(amqpSlabsA.reused > 0, `A's AMQP slabs were reused (${amqpSlabsA.reused})`);
      // Acked and STORED: nothing holds A's read slabs but its one connection's current read.
      await eventually(() => amqpSlabsA.outstanding <= 1, 5000, `A's AMQP slabs come back (outstanding ${amqpSlabsA.outstanding})`);
    } finally {
      await conn.close().catch(() => {});
      link.close();
    }
  });

  it("carries every delivery whole to a node that does not offer it, and B's own publishes always", async () => {
    const link = await linkAToB(fx, fx.secret, undefined, 0);
    const { onB } = queueOnB(fx, link, "own-old");
    const connA = await amqp.connect(fx.a.amqpUrl);
    const connB = await amqp.connect(fx.b.amqpUrl);
    connA.on("error", () => {});
    connB.on("error", () => {});
    try {
      const c = await consume(connA, "own-old", 2, 300);
      await publish(await connA.createConfirmChannel(), "", "own-old", 2, 700);
      await eventually(() => c.failed() !== null || c.got() === 700, 30_000, "A's messages consumed on A");
      assert.equal(c.failed(), null);
      assert.equal(link.deliveredOwn, 0, "no DELIVER_OWN on a link whose connecting node did not offer it");

      const link2 = await linkAToB(fx);
      try {
        queueOnB(fx, link2, "own-from-b");
        const c2 = await consume(connA, "own-from-b", 3, 300);
        await publish(await connB.createConfirmChannel(), "", "own-from-b", 3, 700);
        await eventually(() => c2.failed() !== null || c2.got() === 700, 30_000, "B's messages consumed on A");
        assert.equal(c2.failed(), null);
        assert.equal(link2.deliveredOwn, 0, "messages B's clients published go with their content");
      } finally {
        link2.close();
      }
      await eventually(() => onB.messageCount + onB.unacked === 0, 5000, "every ack settled on B");
    } finally {
      await connA.close().catch(() => {});
      await connB.close().catch(() => {});
      link.close();
    }
  });
});
