// The message store holds a lent body (src/store/held-bodies.ts) from its record's append until
// a group commit has written it, whether or not the message's queue entries are done with it,
// and a flush that wrote nothing keeps the hold for the next one.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMessage } from "../../src/broker/message.js";
import type { QueueEntry } from "../../src/broker/queue/queue-entry.js";
import { SlabPool } from "../../src/listeners/slab-pool.js";
import { createLogger } from "../../src/logging/logger.js";
import { MessageStore } from "../../src/store/message-store.js";

/** A persistent entry whose 1000-byte body lies in a pool slab under a lease, as a socket read would leave it. */
function leasedEntry(pool: SlabPool): QueueEntry {
  const slab = pool.take();
  const lease = pool.lease();
  const body = slab.bytes.subarray(0, 1000).fill(7);
  lease.add(body);
  slab.release(); // the reader moved on
  const message = createMessage("", "q", { deliveryMode: 2 }, null, body, 0, lease);
  return { message, seq: 1, redelivered: false, deliveryCount: 0, returns: 0, expiresAt: 0, storeRef: 0 };
}

describe("the message store as a holder of lent bodies", () => {
  it("keeps the body's slab until the record is written, even when its entry let go first", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-held-"));
    const store = new MessageStore({ dir, logger: createLogger("silent"), compactEveryMs: 0 });
    const pool = new SlabPool({ slabBytes: 4096, maxFree: 4, poison: true });
    const e = leasedEntry(pool);
    store.forQueue("/", "q").append(e);
    // Routing is done with one entry holding; the consumer acks before the group commit.
    e.message.lease!.handOver(1);
    e.message.lease!.release();
    assert.equal(pool.freeCount, 0, "the store still holds the slab");
    await store.sync();
    assert.equal(pool.freeCount, 1, "written: the slab is back");
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps holding through a flush that wrote nothing, and lets go after the next", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-held-"));
    const store = new MessageStore({ dir, logger: createLogger("silent"), compactEveryMs: 0 });
    const pool = new SlabPool({ slabBytes: 4096, maxFree: 4, poison: true });
    let saves = 0;
    // The first batch fails before writing: the definitions it depends on could not be saved.
    store.beforeSync = () => ++saves > 1;
    const e = leasedEntry(pool);
    store.forQueue("/", "q").append(e);
    e.message.lease!.handOver(0);
    const told: boolean[] = [];
    store.whenSynced({ synced: (_t, ok) => void told.push(ok) }, 1);
    await store.sync(); // told at the end of the failed batch
    assert.deepEqual(told, [false], "the first batch failed");
    assert.equal(pool.freeCount, 0, "nothing was written: the store still holds the slab");
    await store.sync();
    assert.ok(saves >= 2, "a second batch ran");
    assert.equal(pool.freeCount, 1, "the second batch wrote the record and let the slab go");
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
