// The inter-node link reads into pooled slabs (src/node-link/link-reads.ts) under the AMQP
// listener's retention rule: a body kept past its read holds a lease on its slab. Bodies a queue
// on the leader keeps while many more messages flow through the same link (their slabs going back
// to the pool, poisoned with 0xdb, and handed out again) must come out intact, on both link ends.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import amqp from "amqplib";
import { SlabPool } from "../../src/listeners/slab-pool.js";
import { LARGE_SLAB } from "../../src/listeners/slab-reads.js";
import { eventually } from "../helpers/wait.js";
import { linkAToB, queueOnB, useTwoNodes } from "./two-nodes.js";

const poisoned = (): SlabPool => new SlabPool({ slabBytes: LARGE_SLAB, maxFree: 8, poison: true });

/** Message `i` of a run: its size class (small copied, large leased) and bytes that name it. */
function bodyOf(tag: number, i: number): Buffer {
  const size = i % 3 === 0 ? 100 : i % 3 === 1 ? 300 : 5000;
  const b = Buffer.alloc(size, (i * 7 + tag) % 251);
  b.writeUInt32BE(i, 0);
  b[4] = tag;
  return b;
}

/** Consumes `queue` on `conn`, checking message `i` is bodyOf(tag, i), acking each; `got()` counts them. */
async function checkingConsumer(conn: amqp.ChannelModel, queue: string, tag: number): Promise<{ got(): number; failed(): Error | null; close(): Promise<void> }> {
  const ch = await conn.createChannel();
  await ch.prefetch(200);
  let next = 0;
  let failure: Error | null = null;
  await ch.consume(queue, (m) => {
    try {
      assert.ok(m !== null);
      const i = next++;
      assert.ok(m.content.equals(bodyOf(tag, i)), `${queue}: body of message ${i} (${m.content.length} bytes) intact`);
      ch.ack(m);
    } catch (err) {
      failure ??= err as Error;
    }
  });
  return { got: () => next, failed: () => failure, close: () => ch.close() };
}

/**
 * Publishes `count` messages to `queue` in batches, each consumed and acked before the next is
 * sent, so the slabs the link read a batch into have gone back to the pool when the next arrives.
 */
async function flow(pub: amqp.ConfirmChannel, consumer: Awaited<ReturnType<typeof checkingConsumer>>, queue: string, tag: number, count: number, settled: () => boolean): Promise<void> {
  for (let sent = 0; sent < count; ) {
    const end = Math.min(count, sent + 300);
    for (; sent < end; sent++) pub.sendToQueue(queue, bodyOf(tag, sent));
    await pub.waitForConfirms();
    await eventually(() => consumer.failed() !== null || (consumer.got() === end && settled()), 10_000, `${queue}: ${end} consumed`);
    if (consumer.failed() !== null) throw consumer.failed();
  }
}

describe("the link's reads into pooled slabs", () => {
  const slabsB = poisoned();
  const fx = useTwoNodes({ slabsB });

  it("keeps bodies a queue holds intact while their slabs' neighbours are reused", async () => {
    const slabsA = poisoned();
    const link = await linkAToB(fx, fx.secret, slabsA);
    queueOnB(fx, link, "slab-held");
    const { onB: flowOnB } = queueOnB(fx, link, "slab-flow");
    const { onB: backOnB } = queueOnB(fx, link, "slab-back");
    const connA = await amqp.connect(fx.a.amqpUrl);
    const connB = await amqp.connect(fx.b.amqpUrl);
    connA.on("error", () => {});
    connB.on("error", () => {});
    try {
      const pub = await connA.createConfirmChannel();
      // Held on B, unconsumed, while everything below flows past them through the same link.
      for (let i = 0; i < 300; i++) pub.sendToQueue("slab-held", bodyOf(1, i));
      await pub.waitForConfirms();
      // Through B's reads, consumed and acked by B's own client: B's slabs come back and are handed out again.
      const onFlow = await checkingConsumer(connB, "slab-flow", 2);
      await flow(pub, onFlow, "slab-flow", 2, 3000, () => flowOnB.messageCount === 0 && flowOnB.unacked === 0);
      assert.ok(slabsB.reused > 0, `B's link reused slabs (reused ${slabsB.reused})`);
      // Delivered to A's client over the link, acked there: A's slabs come back and are reused too.
      const onBack = await checkingConsumer(connA, "slab-back", 3);
      await flow(await connB.createConfirmChannel(), onBack, "slab-back", 3, 3000, () => backOnB.messageCount === 0 && backOnB.unacked === 0);
      assert.ok(slabsA.reused > 0, `A's link reused slabs (reused ${slabsA.reused})`);
      // Published and consumed on A, through B: B's served consumer counts its holds (acks give its slabs back).
      const { onB: roundOnB } = queueOnB(fx, link, "slab-round");
      const reusedBefore = slabsB.reused;
      const onRound = await checkingConsumer(connA, "slab-round", 4);
      await flow(pub, onRound, "slab-round", 4, 3000, () => roundOnB.messageCount === 0 && roundOnB.unacked === 0);
      assert.ok(slabsB.reused > reusedBefore, `B reused slabs for bodies served over the link (${reusedBefore} → ${slabsB.reused})`);
      // The held bodies, read on B before all that, come out whole (over the link to A's client).
      const onHeld = await checkingConsumer(connA, "slab-held", 1);
      await eventually(() => onHeld.failed() !== null || onHeld.got() === 300, 10_000, "the held messages consumed");
      assert.equal(onHeld.failed(), null);
      await onFlow.close();
      await onRound.close();
    } finally {
      await connA.close().catch(() => {});
      await connB.close().catch(() => {});
      link.close();
    }
  });
});
