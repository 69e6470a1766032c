// Holding a large record back while its message is out with a consumer (delivery-hold.ts): the
// write plan's rule (pending-records.ts, cut), the cap's linger (commit-cap.ts), the per-queue
// back-off (hold-judge.ts) and the store end to end — a record acked while held is never
// written and its publisher is confirmed; one that is not acked is written once the hold ends;
// records behind a held one wait for it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createMessage } from "../../src/broker/message.js";
import type { QueueEntry } from "../../src/broker/queue/queue-entry.js";
import { createLogger } from "../../src/logging/logger.js";
import { CAP_LINGER_MS, CommitCap } from "../../src/store/commit-cap.js";
import { HoldJudge } from "../../src/store/hold-judge.js";
import { readRecord } from "../../src/store/message-record.js";
import { MessageStore } from "../../src/store/message-store.js";
import { DEFER_MAX, HOLD_MIN_BYTES, PendingRecords } from "../../src/store/pending-records.js";
import { refOffset } from "../../src/store/record-ref.js";
import { recoverMessages } from "../../src/store/store-recovery.js";
import type { StoredQueueLog } from "../../src/store/stored-queue-log.js";

const LARGE = HOLD_MIN_BYTES;
const oneQueue = new HoldJudge();

/**
 * A table of records of `lens` bytes from offset 8, record i appended at `stamps[i]` (0: not
 * holdable), of the queue judged by `judges[i]` (one queue by default).
 */
function table(lens: number[], stamps: number[], judges: HoldJudge[] = lens.map(() => oneQueue)): { t: PendingRecords; offsets: number[]; end: number } {
  const t = new PendingRecords(0);
  const offsets: number[] = [];
  let pos = 8;
  lens.forEach((len, i) => {
    offsets.push(pos);
    t.begin(pos, 2 * i, true, i + 1, stamps[i], judges[i]);
    t.end(2 * i + 2);
    pos += len;
  });
  return { t, offsets, end: pos };
}

describe("delivery holds: the write plan", () => {
  it("a capped write stops at the first live record that is large, delivered and young; cancelled ones before it are taken", () => {
    const { t, offsets, end } = table([LARGE, LARGE, LARGE, LARGE], [100, 200, 300, 400]);
    t.cancel(offsets[0]!);
    assert.equal(t.deliver(offsets[1]!), true);
    assert.equal(t.deliver(offsets[3]!), true, "the last record (a consumer keeping up)");
    assert.equal(t.cut(10 * LARGE, end, 150), 1, "record 0 (cancelled) is taken, record 1 is held");
    assert.equal(t.heldStamp, 200);
    assert.equal(t.cut(10 * LARGE, end, 250), 3, "once record 1 is old enough, the write goes on to the next held one (record 2 was never delivered)");
    assert.equal(t.heldStamp, 400);
    assert.equal(t.cut(10 * LARGE, end, 400), 4);
    assert.equal(t.heldStamp, 0);
  });

  it("holds only delivered, large records, only under a cap, and never past DEFER_MAX", () => {
    const undelivered = table([LARGE, LARGE], [100, 100]);
    assert.equal(undelivered.t.cut(10 * LARGE, undelivered.end, 0), 2, "a record no consumer has is written");
    const small = table([LARGE - 1, LARGE], [0, 100]);
    small.t.deliver(small.offsets[0]!);
    small.t.deliver(small.offsets[1]!);
    assert.equal(small.t.cut(10 * LARGE, small.end, 0), 1, "a small delivered record is written; the large one after it is held");
    const uncapped = table([LARGE], [100]);
    uncapped.t.deliver(uncapped.offsets[0]!);
    assert.equal(uncapped.t.cut(Infinity, uncapped.end, 0), 1, "no cap, no hold");
    const big = 16 * 1024 * 1024;
    const many = table([big, big, big, big, big, big], [100, 100, 100, 100, 100, 100]);
    for (const o of many.offsets) many.t.deliver(o);
    assert.equal(many.t.cut(1, many.end, 0), 2, "the 32 MiB past DEFER_MAX are written, held or not");
    assert.ok(many.end - 8 - 2 * big <= DEFER_MAX);
  });

  it("deliver() says whether the record still waits for its write", () => {
    const { t, offsets, end } = table([LARGE, LARGE, LARGE], [1, 1, 1]);
    assert.equal(t.deliver(offsets[1]!), true, "a record in the middle (binary search)");
    assert.equal(t.deliver(offsets[1]! + 1), false, "not a record's start");
    const head = Buffer.alloc(12);
    head.writeUInt32LE(LARGE - 8, 0);
    head[8] = 1;
    t.plan([head, Buffer.alloc(LARGE - 12)], 8, offsets[1]!, true, 1);
    assert.equal(t.deliver(offsets[0]!), false, "a written record");
    assert.equal(t.cut(10 * LARGE, end, 0), 0, "record 1 (now the oldest) is held");
  });
});

describe("delivery holds: the cap's linger", () => {
  it("stays on CAP_LINGER_MS after the last flush that followed a record acked or delivered before its write, then goes off; a closing store writes all", () => {
    const cap = new CommitCap(1024);
    assert.equal(cap.nextBudget(false, 1000), Infinity, "nothing cancelled yet");
    cap.consumedBeforeWrite();
    assert.equal(cap.nextBudget(false, 1000), 1024);
    assert.equal(cap.nextBudget(false, 1000 + CAP_LINGER_MS - 1), 1024, "acks come in runs: the cap stays on between them");
    assert.equal(cap.nextBudget(false, 1000 + CAP_LINGER_MS), Infinity);
    cap.consumedBeforeWrite();
    assert.equal(cap.nextBudget(true, 2000), Infinity);
  });
});

describe("delivery holds: holds that do not pay stop, queue by queue", () => {
  const end = (judge: HoldJudge, paid: number, expired: number): void => {
    for (let i = 0; i < paid; i++) judge.ended(true);
    for (let i = 0; i < expired; i++) judge.ended(false);
  };

  it("more than half of a queue's last holds written after all: no hold for 1 s, then 2 s, …; a good tally resets the back-off", () => {
    const judge = new HoldJudge();
    assert.equal(judge.allows(1000), true);
    end(judge, 3, 4);
    assert.equal(judge.allows(1000), true, "7 holds ended: too few to judge");
    end(judge, 0, 1);
    assert.equal(judge.allows(1000), false, "5 of 8 expired: holding stops");
    end(judge, 8, 0);
    assert.equal(judge.allows(1999), false);
    assert.equal(judge.allows(2000), true, "after 1 s holds are tried again; what ended meanwhile was not counted");
    end(judge, 0, 8);
    assert.equal(judge.allows(2000), false);
    assert.equal(judge.allows(3999), false, "failing again: 2 s");
    assert.equal(judge.allows(4000), true);
    end(judge, 4, 4);
    assert.equal(judge.allows(4000), true, "half expired is still worth it (a paid hold often saved many writes)");
    end(judge, 0, 8);
    assert.equal(judge.allows(5000), false);
    assert.equal(judge.allows(5999), false, "the good tally reset the back-off to 1 s");
    assert.equal(judge.allows(6000), true);
  });

  it("a write counts how each held record ended, on its own queue's judge, and skips the holds of a queue whose holds do not pay", () => {
    const slow = new HoldJudge();
    const fast = new HoldJudge();
    const { t, offsets, end: fileEnd } = table([LARGE, LARGE, LARGE], [100, 200, 300], [slow, fast, fast]);
    for (const o of offsets) t.deliver(o);
    assert.equal(t.cut(10 * LARGE, fileEnd, 50, 100), 0, "the slow queue's record is held");
    assert.equal(t.cut(10 * LARGE, fileEnd, 150, 200), 1, "written after all (expired); the fast queue's record is held");
    t.cancel(offsets[1]!);
    // The slow queue's tally: 1 expired. Seven more expired holds of it turn its holds off.
    end(slow, 0, 7);
    const next = table([LARGE, LARGE], [1000, 1001], [slow, fast]);
    for (const o of next.offsets) next.t.deliver(o);
    assert.equal(next.t.cut(10 * LARGE, next.end, 900, 1010), 1, "the slow queue's record is written, the fast queue's held");
    assert.equal(next.t.heldStamp, 1001);
    // The fast queue's tally: 1 paid (the cancel above) — its holds go on.
    end(fast, 7, 0);
    assert.equal(fast.allows(1010), true);
  });
});

function entry(i: number, size: number): QueueEntry {
  return { message: createMessage("", "q", { deliveryMode: 2 }, null, Buffer.alloc(size, i), 0), seq: i, redelivered: false, deliveryCount: 0, returns: 0, expiresAt: 0, storeRef: 0 };
}

interface Harness {
  dir: string;
  store: MessageStore;
  log: StoredQueueLog;
  told: number[];
  /** Appends a record of `size` bytes for publisher `token`, delivered to a consumer when `delivered`. */
  publish(token: number, size: number, delivered: boolean): QueueEntry;
  /** Resolves once publisher `token` is confirmed. */
  confirmed(token: number): Promise<void>;
  close(): Promise<Buffer>;
}

function harness(holdMs: number): Harness {
  const dir = mkdtempSync(join(tmpdir(), "coney-hold-"));
  const store = new MessageStore({ dir, logger: createLogger("silent"), compactEveryMs: 0, holdMs });
  const log = store.forQueue("/", "q") as StoredQueueLog;
  const told: number[] = [];
  const waits = new Map<number, () => void>();
  const waiter = {
    synced: (token: number, ok: boolean) => {
      assert.ok(ok);
      told.push(token);
      waits.get(token)?.();
    },
  };
  return {
    dir,
    store,
    log,
    told,
    publish(token, size, delivered) {
      const e = entry(token, size);
      log.append(e);
      if (delivered) log.delivered(e);
      store.whenSynced(waiter, token);
      return e;
    },
    confirmed: (token) => (told.includes(token) ? Promise.resolve() : new Promise((r) => waits.set(token, r))),
    async close() {
      await store.close();
      return readFileSync(join(dir, "00000001.seg"));
    },
  };
}

describe("delivery holds: the store", () => {
  it("a large record out with a consumer waits for its ack; acked, its publisher is confirmed and its body is never written", async () => {
    const h = harness(60_000);
    const e = h.publish(1, LARGE, true);
    await sleep(50); // many event-loop turns: flushes run, none may write or confirm it
    assert.deepEqual(h.told, [], "not confirmed while held");
    h.store.markDead(e.storeRef!);
    await h.confirmed(1);
    const buf = await h.close();
    const at = refOffset(e.storeRef!);
    // Its skipped head only: the file may end there ("end": nothing after it was written).
    assert.ok(["skipped", "end"].includes(readRecord(buf, at).status));
    assert.ok(buf.length <= at + 9 || buf.subarray(at + 9).every((b) => b === 0), "the body was never written");
    rmSync(h.dir, { recursive: true, force: true });
  });

  it("not acked, it is written once it is holdMs old, and recovery finds it", async () => {
    const h = harness(40);
    const started = performance.now();
    const e = h.publish(1, LARGE, true);
    await h.confirmed(1);
    assert.ok(performance.now() - started >= 39, "held for holdMs first");
    const buf = await h.close();
    const r = readRecord(buf, refOffset(e.storeRef!));
    assert.equal(r.status, "ok");
    const again = new MessageStore({ dir: h.dir, logger: createLogger("silent"), compactEveryMs: 0 });
    again.forQueue("/", "q");
    assert.equal(recoverMessages(again, 0).messages, 1);
    await again.close();
    rmSync(h.dir, { recursive: true, force: true });
  });

  it("records behind a held one wait with it (confirms follow append order), then go out with its ack", async () => {
    const h = harness(60_000);
    const held = h.publish(1, LARGE, true);
    const behind = h.publish(2, 100, false);
    await sleep(50);
    // A waiter with no record of its own (a tx.commit after the publishes) starts a flush the
    // holding segment is not part of: it must still count the held record.
    h.store.whenSynced({ synced: (token) => h.told.push(token) }, 3);
    await sleep(50);
    assert.deepEqual(h.told, [], "the record behind waits for the held one, and so does a later waiter");
    h.store.markDead(held.storeRef!);
    await h.confirmed(2);
    await sleep(10);
    assert.deepEqual(h.told, [1, 2, 3]);
    const buf = await h.close();
    assert.equal(readRecord(buf, refOffset(behind.storeRef!)).status, "ok");
    rmSync(h.dir, { recursive: true, force: true });
  });

  it("small delivered records and large undelivered ones are never held; a closing store writes held ones", async () => {
    const h = harness(60_000);
    h.publish(1, LARGE - 1, true);
    h.publish(2, LARGE, false);
    await h.confirmed(2);
    const held = h.publish(3, LARGE, true);
    await sleep(20);
    assert.deepEqual(h.told, [1, 2]);
    const buf = await h.close();
    assert.deepEqual(h.told, [1, 2, 3], "close() writes everything and confirms it");
    assert.equal(readRecord(buf, refOffset(held.storeRef!)).status, "ok");
    rmSync(h.dir, { recursive: true, force: true });
  });
});
