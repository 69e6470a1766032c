// Group commit: everything appended in one event-loop turn is written and fsynced once, and
// every waiter of that turn hears back after that fsync.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMessage } from "../../src/broker/message.js";
import type { QueueEntry } from "../../src/broker/queue/queue-entry.js";
import { createLogger } from "../../src/logging/logger.js";
import { readRecord } from "../../src/store/message-record.js";
import { MessageStore } from "../../src/store/message-store.js";
import { SEGMENT_MAGIC } from "../../src/store/segment.js";

describe("message store group commit", () => {
  it("syncs 100 appends from one turn with one fsync, then tells all 100 waiters", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-gc-"));
    const store = new MessageStore({ dir, logger: createLogger("silent"), compactEveryMs: 0 });
    const log = store.forQueue("/", "q");
    const synced: number[] = [];
    const waiter = { synced: (token: number, ok: boolean) => ok && synced.push(token) };
    for (let i = 1; i <= 100; i++) {
      const e: QueueEntry = { message: createMessage("", "q", { deliveryMode: 2 }, null, Buffer.from(`b${i}`), 0), seq: i, redelivered: false, deliveryCount: 0, returns: 0, expiresAt: 0, storeRef: 0 };
      log.append(e);
      assert.ok(e.storeRef! > 0);
      store.whenSynced(waiter, i);
    }
    assert.equal(synced.length, 0, "nobody hears back before the fsync");
    await store.sync();
    assert.equal(store.stats.syncs, 1);
    assert.deepEqual(synced, Array.from({ length: 100 }, (_, i) => i + 1));
    await store.close();
    const buf = readFileSync(join(dir, "00000001.seg"));
    let n = 0;
    for (let pos = SEGMENT_MAGIC.length; ; n++) {
      const r = readRecord(buf, pos);
      if (r.status !== "ok") break;
      assert.equal(r.record.body.toString(), `b${n + 1}`);
      pos = r.next;
    }
    assert.equal(n, 100);
    rmSync(dir, { recursive: true, force: true });
  });
});
