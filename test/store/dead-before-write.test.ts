// A record that dies before its group commit is not written (pending-records.ts): a large one's
// 9-byte skipped head lands in the file and the rest of its extent stays a hole, a small one is
// written marked skipped; every other record keeps its offset, and recovery counts the skipped
// ones dead.
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

function entry(i: number, size = BODY): QueueEntry {
  return { message: createMessage("", "q", { deliveryMode: 2 }, null, Buffer.alloc(size, i), 0), seq: i, redelivered: false, deliveryCount: 0, returns: 0, expiresAt: 0, storeRef: 0 };
}

/** Appends `n` records in one turn, kills those in `dead` before the flush, and syncs. */
async function writeWithDeaths(dir: string, n: number, dead: ReadonlySet<number>, size = BODY): Promise<{ store: MessageStore; refs: number[] }> {
  const store = new MessageStore({ dir, logger: createLogger("silent"), compactEveryMs: 0 });
  const log = store.forQueue("/", "q");
  const refs: number[] = [];
  let told = 0;
  for (let i = 1; i <= n; i++) {
    const e = entry(i, size);
    log.append(e);
    refs.push(e.storeRef!);
    store.whenSynced({ synced: (_t, ok) => void (ok && told++) }, i);
  }
  for (const i of dead) store.markDead(refs[i - 1]!);
  await store.sync();
  assert.equal(told, n, "every waiter hears back: a record that died is no one's to wait for");
  return { store, refs };
}

describe("records that die before their write", () => {
  it("are written as skipped heads, one per stretch of dead records; the others stay intact at their offsets", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-dbw-"));
    const dead = new Set([2, 3, 7]);
    const { store, refs } = await writeWithDeaths(dir, 9, dead);
    await store.close();
    const buf = readFileSync(join(dir, "00000001.seg"));
    for (let i = 1; i <= 9; i++) {
      const at = refOffset(refs[i - 1]!);
      const r = readRecord(buf, at);
      if (dead.has(i)) {
        if (i === 3) {
          // Inside the stretch 2..3: its head was never written, record 2's spans it.
          assert.equal(r.status, "torn", "record 3's bytes are a hole");
          assert.deepEqual(readRecord(buf, refOffset(refs[1]!)), { status: "skipped", next: refOffset(refs[3]!) }, "record 2's head spans 2 and 3");
        } else {
          assert.equal(r.status, "skipped", `record ${i}`);
        }
        // At most the head was written: the body's bytes are a hole (zeros), not the body.
        assert.ok(buf.subarray(at + 9, at + 9 + BODY).every((b) => b === 0), `record ${i}'s body is not on disk`);
      } else {
        assert.equal(r.status, "ok", `record ${i}`);
        if (r.status === "ok") assert.ok((r.record.body as Buffer).equals(Buffer.alloc(BODY, i)), `record ${i}'s body`);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("small ones are written in place, marked skipped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-dbw-"));
    const { store, refs } = await writeWithDeaths(dir, 5, new Set([2, 5]), 100);
    await store.close();
    const buf = readFileSync(join(dir, "00000001.seg"));
    assert.deepEqual(
      refs.map((ref) => readRecord(buf, refOffset(ref)).status),
      ["ok", "skipped", "ok", "ok", "skipped"],
    );
    const again = new MessageStore({ dir, logger: createLogger("silent"), compactEveryMs: 0 });
    again.forQueue("/", "q");
    assert.equal(recoverMessages(again, 0).messages, 3);
    await again.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("recovery keeps the live records, counts the skipped dead, and reports nothing torn or corrupt (a skipped last record too)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-dbw-"));
    const { store } = await writeWithDeaths(dir, 8, new Set([1, 4, 8]));
    await store.close();
    const again = new MessageStore({ dir, logger: createLogger("silent"), compactEveryMs: 0 });
    again.forQueue("/", "q");
    const report = recoverMessages(again, 0);
    assert.equal(report.messages, 5);
    assert.equal(report.corruptRecords, 0);
    assert.equal(report.tornTails, 0);
    await again.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a record whose death comes after its write started is written whole and marked dead as before", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-dbw-"));
    const store = new MessageStore({ dir, logger: createLogger("silent"), compactEveryMs: 0 });
    const log = store.forQueue("/", "q");
    const e = entry(5);
    log.append(e);
    const writing = store.sync();
    // The flush has taken the record's pieces on the next turn; the death arrives after.
    await new Promise((r) => setImmediate(r));
    store.markDead(e.storeRef!);
    await writing;
    await store.close();
    const buf = readFileSync(join(dir, "00000001.seg"));
    const r = readRecord(buf, refOffset(e.storeRef!));
    assert.equal(r.status, "ok");
    const again = new MessageStore({ dir, logger: createLogger("silent"), compactEveryMs: 0 });
    again.forQueue("/", "q");
    assert.equal(recoverMessages(again, 0).messages, 0, "its death mark keeps it dead");
    await again.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
