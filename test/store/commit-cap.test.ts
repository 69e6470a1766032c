// The cap on a group commit (message-store.ts): while acks cancel waiting records, one flush
// writes only the oldest live records up to `commitBytes`; the rest wait for the next flush and
// may die first, so they are never written. A confirm waits for its own records, never less.
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
import { refOffset } from "../../src/store/record-ref.js";
import { recoverMessages } from "../../src/store/store-recovery.js";

const BODY = 64 * 1024;

function entry(i: number): QueueEntry {
  return { message: createMessage("", "q", { deliveryMode: 2 }, null, Buffer.alloc(BODY, i), 0), seq: i, redelivered: false, deliveryCount: 0, returns: 0, expiresAt: 0, storeRef: 0 };
}

function open(dir: string): MessageStore {
  return new MessageStore({ dir, logger: createLogger("silent"), compactEveryMs: 0, commitBytes: BODY });
}

/** Appends records 1..n in one turn, each followed by its publisher's waiter (token i). */
function appendAll(store: MessageStore, n: number, told: number[], onTold: (token: number) => void = () => undefined): number[] {
  const log = store.forQueue("/", "q");
  const refs: number[] = [];
  const waiter = {
    synced: (token: number, ok: boolean) => {
      assert.ok(ok);
      told.push(token);
      onTold(token);
    },
  };
  for (let i = 1; i <= n; i++) {
    const e = entry(i);
    log.append(e);
    refs.push(e.storeRef!);
    store.whenSynced(waiter, i);
  }
  return refs;
}

describe("the cap on a group commit", () => {
  it("while acks cancel waiting records, a flush writes the oldest up to the cap; the others wait, and those acked meanwhile are never written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-cap-"));
    const store = open(dir);
    const told: number[] = [];
    let toldAtFirstFlush: number[] = [];
    const refs = appendAll(store, 10, told, (token) => {
      if (token !== 2) return;
      // The first flush wrote records 1 (dead: a head only) and 2, then told their publishers:
      // nobody whose record still waits. A consumer now acks 3..6 while they wait.
      toldAtFirstFlush = [...told];
      for (let i = 3; i <= 6; i++) store.markDead(refs[i - 1]!);
    });
    store.markDead(refs[0]!); // acked before any write: the cap engages
    await store.sync();
    assert.deepEqual(toldAtFirstFlush, [1, 2], "a confirm waits for its own record, not for the batch it registered in");
    assert.deepEqual(told, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "every publisher hears back, in order");
    assert.ok(store.stats.syncs >= 3, `records were written over several flushes (${store.stats.syncs})`);
    await store.close();
    const buf = readFileSync(join(dir, "00000001.seg"));
    for (let i = 1; i <= 10; i++) {
      const at = refOffset(refs[i - 1]!);
      const r = readRecord(buf, at);
      if (i === 1 || (i >= 3 && i <= 6)) {
        // Records 3..6 died together: one skipped head (record 3's) spans them, the rest is a hole.
        assert.equal(r.status, i <= 3 ? "skipped" : "torn", `record ${i}`);
        if (i === 3) assert.deepEqual(r, { status: "skipped", next: refOffset(refs[6]!) });
        assert.ok(buf.subarray(at + 9, at + 9 + BODY).every((b) => b === 0), `record ${i}'s body was never written`);
      } else {
        assert.equal(r.status, "ok", `record ${i}`);
        if (r.status === "ok") assert.ok((r.record.body as Buffer).equals(Buffer.alloc(BODY, i)), `record ${i}'s body`);
      }
    }
    const again = open(dir);
    again.forQueue("/", "q");
    assert.equal(recoverMessages(again, 0).messages, 5, "records 2 and 7..10 come back");
    await again.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("with no record cancelled (no consumer keeps up) one flush writes everything, as many bytes per fsync as have arrived", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-cap-"));
    const store = open(dir);
    const told: number[] = [];
    appendAll(store, 10, told);
    await store.sync();
    assert.equal(store.stats.syncs, 1);
    assert.equal(told.length, 10);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
