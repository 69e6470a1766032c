// A full disk during compaction, online and at boot: nothing is half-replaced. Online
// compaction gives up its copies and keeps using the old segments; a restart on the still-full
// disk keeps a sparse segment as it is instead of failing to start. Every message is kept.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { rmSync } from "node:fs";
import amqp from "amqplib";
import { startTestBroker } from "../helpers/broker.js";
import type { MessageStore } from "../../src/store/message-store.js";
import { drain } from "../store/store-harness.js";
import { fillDisk, tmpfsForSuite } from "./fault-harness.js";

const BODY = Buffer.alloc(1024, 0x63);

describe("fault: full disk during compaction", () => {
  const mountPoint = tmpfsForSuite(16);

  it("keeps every message and the old segments when online compaction and boot compaction cannot write", async () => {
    const dataDir = join(mountPoint(), "data");
    const opts = { dataDir, diskFreeLimit: 0, messageStore: { paging: { maxEntries: 10, maxBytes: 1 << 20 }, segmentBytes: 8192, compactEveryMs: 0 } };
    const b = await startTestBroker(opts);
    const store = b.broker.journal as MessageStore;
    const conn = await amqp.connect(b.amqpUrl);
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("drained", { durable: true });
    await ch.assertQueue("kept", { durable: true });
    // Two "drained" for each "kept": once "drained" is consumed, old segments are a third live, all paged out.
    const kept: string[] = [];
    for (let i = 0; i < 300; i++) {
      if (i % 3 === 2) kept.push(String(i));
      ch.publish("", i % 3 === 2 ? "kept" : "drained", BODY, { persistent: true, messageId: String(i) });
    }
    await ch.waitForConfirms();
    await drain(await conn.createChannel(), "drained");
    await store.sync();
    const filler = fillDisk(mountPoint());
    try {
      const segmentsBefore = store.segments.size;
      assert.equal(store.compact(0.5, Infinity), 0, "online compaction gives up on the full disk");
      assert.ok(store.stats.writeFailures >= 1);
      assert.ok(store.segments.size >= segmentsBefore - 1, "the old segments are all still in use");
      assert.equal(b.broker.vhost("/").queues.get("kept")!.messageCount, kept.length);
      await conn.close();
      await b.close();

      // Restart on the still-full disk: boot compaction cannot copy either; the broker starts.
      const b2 = await startTestBroker(opts);
      try {
        const c2 = await amqp.connect(b2.amqpUrl);
        const ids = (await drain(await c2.createChannel(), "kept")).map((m) => m.properties.messageId as string);
        assert.deepEqual(ids, kept, "every message, once, in order");
        await c2.close();
      } finally {
        await b2.close();
      }
    } finally {
      rmSync(filler, { force: true });
    }
  });
});
