// messages_persistent / message_bytes_persistent count the persistent messages a durable queue
// holds in the store, wherever they are (in memory, paged out, recovered), and drop as they go.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";

interface QueueFigures {
  messages: number;
  messages_persistent: number;
  message_bytes_persistent: number;
  head_message_timestamp: number | null;
}

async function figures(b: TestBroker, queue: string): Promise<QueueFigures> {
  const res = await apiClient(() => b.httpUrl)("GET", `/api/queues/%2f/${queue}`);
  assert.equal(res.status, 200);
  return res.json as QueueFigures;
}

describe("persistent message counts", () => {
  it("follow publishes, paging, acks, purges and a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-persistent-"));
    try {
      const b = await startTestBroker({ dataDir, messageStore: { paging: { maxEntries: 5, maxBytes: 1024 * 1024 } } });
      const conn = await amqp.connect(b.amqpUrl);
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue("pc", { durable: true });
      await ch.assertQueue("pc-transient", { durable: false });
      // 20 persistent of 10 bytes (most of them paged out) and 5 transient ones among them.
      for (let i = 0; i < 25; i++) ch.sendToQueue("pc", Buffer.alloc(10, i), { persistent: i % 5 !== 4, timestamp: 1_700_000_000 + i });
      ch.sendToQueue("pc-transient", Buffer.from("x"), { persistent: true });
      await ch.waitForConfirms();
      const before = await figures(b, "pc");
      assert.deepEqual([before.messages, before.messages_persistent, before.message_bytes_persistent, before.head_message_timestamp], [25, 20, 200, 1_700_000_000]);
      assert.equal((await figures(b, "pc-transient")).messages_persistent, 0, "a non-durable queue stores nothing");

      const got = await ch.get("pc", { noAck: false });
      assert.ok(got);
      ch.ack(got);
      await ch.checkQueue("pc"); // a round trip on the same channel: the ack has been handled
      const after = await figures(b, "pc");
      assert.deepEqual([after.messages_persistent, after.message_bytes_persistent, after.head_message_timestamp], [19, 190, 1_700_000_001]);
      await conn.close();
      await b.close();

      const again = await startTestBroker({ dataDir });
      const recovered = await figures(again, "pc");
      assert.deepEqual([recovered.messages, recovered.messages_persistent, recovered.message_bytes_persistent], [19, 19, 190], "transient messages are gone after the restart");
      const c2 = await amqp.connect(again.amqpUrl);
      const ch2 = await c2.createChannel();
      for (let i = 0; i < 4; i++) {
        const m = await ch2.get("pc", { noAck: true });
        assert.ok(m);
      }
      const taken = await figures(again, "pc");
      assert.deepEqual([taken.messages_persistent, taken.message_bytes_persistent], [15, 150]);
      await ch2.purgeQueue("pc");
      const purged = await figures(again, "pc");
      assert.deepEqual([purged.messages_persistent, purged.message_bytes_persistent, purged.head_message_timestamp], [0, 0, null]);
      await c2.close();
      await again.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
