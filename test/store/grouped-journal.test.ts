// The journal of a node with several queue groups (src/store/grouped-journal.ts): a waiter is
// told once every group store holding unsynced appends has synced them, stores that appended
// nothing are left alone, and a failed write in any of them fails the waiter.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMessage } from "../../src/broker/message.js";
import type { QueueEntry } from "../../src/broker/queue/queue-entry.js";
import { createLogger } from "../../src/logging/logger.js";
import { GroupedJournal } from "../../src/store/grouped-journal.js";
import { MessageStore } from "../../src/store/message-store.js";

const entry = (text: string): QueueEntry => ({ message: createMessage("", "q", { deliveryMode: 2 }, null, Buffer.from(text), 0), seq: 1, redelivered: false, deliveryCount: 0, returns: 0, expiresAt: 0, storeRef: 0 });

interface Fixture {
  readonly journal: GroupedJournal;
  readonly stores: readonly MessageStore[];
  /** Which stores ran a synced batch, in order. */
  readonly synced: number[];
  /** Stores whose next synced batch fails (the definitions it needs "could not be saved"). */
  readonly failing: Set<number>;
  close(): Promise<void>;
}

function fixture(groups: number): Fixture {
  const dir = mkdtempSync(join(tmpdir(), "coney-grouped-"));
  const stores = Array.from({ length: groups }, (_, g) => new MessageStore({ dir: join(dir, `g${g}`, "messages"), logger: createLogger("silent"), compactEveryMs: 0 }));
  const synced: number[] = [];
  const failing = new Set<number>();
  stores.forEach((s, g) => {
    s.beforeSync = () => {
      synced.push(g);
      return !failing.delete(g);
    };
  });
  const journal = new GroupedJournal(stores);
  return {
    journal,
    stores,
    synced,
    failing,
    async close() {
      await Promise.all(stores.map((s) => s.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const told = (j: GroupedJournal): Promise<boolean> => new Promise((resolve) => j.whenSynced({ synced: (_t, ok) => resolve(ok) }, 7));

describe("a grouped journal", () => {
  it("counts appends of every group and routes each queue's log to its group's store", async () => {
    const f = fixture(3);
    f.journal.forQueue("/", "a", 0, 0).append(entry("a"));
    f.journal.forQueue("/", "c", 0, 2).append(entry("c"));
    assert.equal(f.journal.appends, 2);
    assert.equal(f.journal.groups, 3);
    assert.deepEqual(f.stores.map((s) => s.logs.size), [1, 0, 1]);
    assert.throws(() => f.journal.forQueue("/", "x", 0, 3), /queue group 3 does not exist/);
    await f.close();
  });

  it("tells a waiter once every store with unsynced appends has synced, and leaves idle stores alone", async () => {
    const f = fixture(3);
    f.journal.forQueue("/", "a", 0, 0).append(entry("a"));
    f.journal.forQueue("/", "c", 0, 2).append(entry("c"));
    assert.equal(await told(f.journal), true);
    assert.deepEqual([...f.synced].sort(), [0, 2], "both stores that took a record synced; g1 did not");
    for (const g of [0, 2]) assert.ok(f.stores[g]!.stats.syncs >= 1);
    assert.equal(f.stores[1]!.stats.syncs, 0);
    // Synced stores leave the pending set: the next waiter, after an append to g1 only, waits on g1 only.
    f.synced.length = 0;
    f.journal.forQueue("/", "b", 0, 1).append(entry("b"));
    assert.equal(await told(f.journal), true);
    assert.deepEqual(f.synced, [1]);
    await f.close();
  });

  it("fails the waiter when one of the stores it waits on fails its write", async () => {
    const f = fixture(2);
    f.journal.forQueue("/", "a", 0, 0).append(entry("a"));
    f.journal.forQueue("/", "b", 0, 1).append(entry("b"));
    f.failing.add(1);
    assert.equal(await told(f.journal), false);
    await f.close();
  });

  it("answers a waiter with nothing unsynced after a flush, never inside the call", async () => {
    const f = fixture(2);
    let answered = false;
    const done = new Promise<boolean>((resolve) =>
      f.journal.whenSynced({ synced: (_t, ok) => ((answered = true), resolve(ok)) }, 1),
    );
    assert.equal(answered, false);
    assert.equal(await done, true);
    await f.close();
  });
});
