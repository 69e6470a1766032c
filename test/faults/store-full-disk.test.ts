// A full disk under the message store with the disk alarm off (--disk-free-limit 0): what the
// store cannot write is nacked AND enqueued nowhere (RabbitMQ's meaning of a broker nack), every
// confirmed message is kept (also after a restart), and the repeated write error is logged once
// with a count instead of once per batch.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { rmSync } from "node:fs";
import amqp from "amqplib";
import { startTestBroker } from "../helpers/broker.js";
import { eventually } from "../helpers/wait.js";
import { capturingLogger, drain } from "../store/store-harness.js";
import { fillDisk, publishUntilNacked, sortedIds as sorted, tmpfsForSuite } from "./fault-harness.js";

const BODY = Buffer.alloc(4096, 0x61);


describe("fault: full disk under the message store", () => {
  const mountPoint = tmpfsForSuite(24);

  it("nacks what it cannot write, enqueues it nowhere, keeps every confirmed message across a restart, and logs the error once with a count", async (t) => {
    const dataDir = join(mountPoint(), "data");
    const captured = capturingLogger();
    // Small paging limits: part of the durable queue is paged out, so both halves are exercised.
    const b = await startTestBroker({ dataDir, diskFreeLimit: 0, logger: captured.logger, messageStore: { paging: { maxEntries: 100, maxBytes: 1 << 20 } } });
    // A failed assertion must not leave the broker running (the file would hang until its timeout).
    t.after(() => b.close());
    const conn = await amqp.connect(b.amqpUrl);
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("durable-q", { durable: true });
    await ch.assertQueue("transient-q", { durable: false });
    await ch.bindQueue("durable-q", "amq.fanout", "");
    await ch.bindQueue("transient-q", "amq.fanout", "");
    // A consumer that holds everything it gets unacked: it gets messages before their fsync, so
    // also some whose write then fails; those must not come back when it closes (requeue).
    const holder = await conn.createChannel();
    const heldIds = new Set<string>();
    await holder.consume("transient-q", (m) => heldIds.add(m!.properties.messageId as string), { noAck: false });
    await eventually(() => b.broker.vhost("/").queues.get("transient-q")!.consumerCount === 1);
    const filler = fillDisk(mountPoint(), 3 << 20);
    t.after(() => rmSync(filler, { force: true }));

    const { acked, nacked } = await publishUntilNacked(ch, 300, BODY);
    assert.ok(acked.length > 100, `some messages fit on the disk (${acked.length} confirmed)`);
    const nackedIds = new Set(nacked);
    await eventually(() => [...heldIds].some((id) => nackedIds.has(id)), 5000, "the holder to have got a message whose write then failed");
    await holder.close(); // its unacked deliveries are requeued now

    const v = b.broker.vhost("/");
    assert.equal(v.queues.get("durable-q")!.messageCount, acked.length, `the durable queue holds exactly the ${acked.length} confirmed messages, not the ${nacked.length} nacked ones`);
    assert.equal(v.queues.get("transient-q")!.messageCount, acked.length, "the other queue the publish reached holds none of the nacked ones either");
    const getCh = await conn.createChannel();
    const inTransient = (await drain(getCh, "transient-q")).map((m) => m.properties.messageId as string);
    assert.deepEqual(sorted(inTransient), sorted(acked), "the transient queue holds the confirmed messages");

    const failures = captured.lines.filter((l) => l.includes("message store write failed"));
    assert.ok(failures.length <= 2, `the repeated write error is rate-limited (${failures.length} lines for ${nacked.length} nacks)`);
    // ENOSPC, or a write cut short when the disk filled part way through it (segment.ts, ShortWrite).
    for (const l of failures) assert.match(JSON.parse(l)["code"] as string, /^(ENOSPC|ESHORTWRITE)$/, "the error line names the cause");
    await conn.close();
    await b.close();

    // Still full at the next start; then every confirmed message is there, and nothing nacked.
    const b2 = await startTestBroker({ dataDir, diskFreeLimit: 0 });
    t.after(() => b2.close());
    const conn2 = await amqp.connect(b2.amqpUrl);
    const ch2 = await conn2.createChannel();
    const recovered = (await drain(ch2, "durable-q")).map((m) => m.properties.messageId as string);
    assert.deepEqual(recovered, sorted(acked), "after a restart: every confirmed message, in order, and no nacked one");
    await conn2.close();
  });
});
