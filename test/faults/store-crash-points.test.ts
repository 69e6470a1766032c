// A crash (SIGKILL) at each step of the store's life, chosen with CONEY_FAULT_POINT: right after
// a group commit's fsync (before any confirm), after one the cap cut short, after one that stopped at
// a record held for its ack, at a segment roll, between online compaction's
// fsynced copies and the move of its refs, and between a definitions save's temporary file and
// its rename. After a restart every confirmed message is there once, in order; definitions come
// back whole. (Torn and corrupted records: test/store/message-crash.test.ts.)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp, { type ConfirmChannel } from "amqplib";
import { drain } from "../store/store-harness.js";
import { withTimeout } from "../helpers/wait.js";
import { spawnChildBroker, type ChildBroker, type SpawnOptions } from "./fault-harness.js";

const BODY = Buffer.alloc(1024, 0x62);

/**
 * Publishes persistent messages with confirms (50 in flight) until the broker dies; returns the
 * confirmed ids. To `queue` through the default exchange, or to `exchange` (declared by the caller).
 */
async function publishUntilDeath(b: ChildBroker, queue: string, exchange = "", body = BODY): Promise<string[]> {
  const conn = await amqp.connect(b.url);
  conn.on("error", () => undefined);
  const ch = await conn.createConfirmChannel();
  ch.on("error", () => undefined);
  if (exchange === "") await ch.assertQueue(queue, { durable: true });
  const confirmed: string[] = [];
  let inflight = 0;
  let wake: (() => void) | null = null;
  let dead = false;
  conn.on("close", () => {
    dead = true;
    wake?.();
  });
  for (let i = 0; !dead && i < 100_000; i++) {
    while (inflight >= 50 && !dead) await new Promise<void>((r) => (wake = r));
    if (dead) break;
    inflight++;
    const id = String(i);
    try {
      ch.publish(exchange, exchange === "" ? queue : "", body, { persistent: true, messageId: id }, (err: unknown) => {
        inflight--;
        if (err === null || err === undefined) confirmed.push(id);
        const w = wake;
        wake = null;
        w?.();
      });
    } catch {
      break; // the channel is closed: the broker died
    }
  }
  await withTimeout(b.exited, 10_000, "the broker to die at its fault point");
  return confirmed;
}

/** A fanout "both" to durable queues "kept" and "acked"; "acked" is consumed and acked as fast as it can be. */
async function consumeOneOfTwo(b: ChildBroker): Promise<void> {
      const conn = await amqp.connect(b.url);
      conn.on("error", () => undefined);
      const ch = await conn.createChannel();
      ch.on("error", () => undefined);
      await ch.assertExchange("both", "fanout", { durable: true });
      for (const q of ["kept", "acked"]) {
        await ch.assertQueue(q, { durable: true });
        await ch.bindQueue(q, "both", "");
      }
      await ch.prefetch(100);
      await ch.consume("acked", (m) => m && ch.ack(m));
}

async function recoveredIds(o: SpawnOptions, queue: string): Promise<string[]> {
  const b = await spawnChildBroker(o);
  try {
    const conn = await amqp.connect(b.url);
    const ch = await conn.createChannel();
    await ch.checkQueue(queue);
    const ids = (await drain(ch, queue)).map((m) => m.properties.messageId as string);
    await conn.close();
    return ids;
  } finally {
    await b.kill();
  }
}

/** Every confirmed id is there, none twice, all in publish order. */
function assertRecovered(recovered: string[], confirmed: string[]): void {
  assert.ok(confirmed.length > 0, "some messages were confirmed before the crash");
  assert.equal(new Set(recovered).size, recovered.length, "no message comes back twice");
  const have = new Set(recovered);
  const missing = confirmed.filter((id) => !have.has(id));
  assert.deepEqual(missing, [], `every confirmed message is recovered (${confirmed.length} confirmed, ${recovered.length} recovered)`);
  const nums = recovered.map(Number);
  assert.deepEqual(nums, [...nums].sort((a, b) => a - b), "in publish order");
}

const withDir = async (f: (dataDir: string) => Promise<void>): Promise<void> => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-crash-point-"));
  try {
    await f(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
};

describe("fault: a crash at each step of the store's life", () => {
  it("right after a group commit's fsync, before its confirms go out", () =>
    withDir(async (dataDir) => {
      const b = await spawnChildBroker({ dataDir, env: { CONEY_FAULT_POINT: "commit-synced:kill:40" } });
      const confirmed = await publishUntilDeath(b, "q");
      assert.match(b.log(), /fault point reached.*commit-synced/);
      assertRecovered(await recoveredIds({ dataDir }, "q"), confirmed);
    }));

  it("right after a group commit the cap cut short (newer records still waiting), before its confirms go out", () =>
    withDir(async (dataDir) => {
      // Each message goes to two queues: "acked" is consumed and acked as fast as it can be, so
      // its records die while they wait for a write (a group commit of 32 KB bodies is on disk
      // long enough for acks to come back) and the cap (64 KiB here) engages; "kept" keeps them all.
      const storeOptions = { messageStore: { commitBytes: 64 * 1024 } };
      const b = await spawnChildBroker({ dataDir, storeOptions, env: { CONEY_FAULT_POINT: "commit-capped:kill:3" } });
      await consumeOneOfTwo(b);
      const confirmed = await publishUntilDeath(b, "kept", "both", Buffer.alloc(32 * 1024, 0x63));
      assert.match(b.log(), /fault point reached.*commit-capped/);
      assertRecovered(await recoveredIds({ dataDir, storeOptions }, "kept"), confirmed);
    }));

  it("right after a group commit that stopped at a record held for its consumer's ack, before its confirms go out", () =>
    withDir(async (dataDir) => {
      // As above with 96 KB bodies, which the store may hold back while "acked" has them
      // (delivery-hold.ts): "kept"'s records, behind them in the file, wait with them.
      const b = await spawnChildBroker({ dataDir, env: { CONEY_FAULT_POINT: "commit-held:kill:5" } });
      await consumeOneOfTwo(b);
      const confirmed = await publishUntilDeath(b, "kept", "both", Buffer.alloc(96 * 1024, 0x64));
      assert.match(b.log(), /fault point reached.*commit-held/);
      assertRecovered(await recoveredIds({ dataDir }, "kept"), confirmed);
    }));

  it("at a segment roll (the new file is created, nothing is in it yet)", () =>
    withDir(async (dataDir) => {
      const storeOptions = { messageStore: { segmentBytes: 32 * 1024 } };
      const b = await spawnChildBroker({ dataDir, storeOptions, env: { CONEY_FAULT_POINT: "segment-rolled:kill:4" } });
      const confirmed = await publishUntilDeath(b, "q");
      assert.match(b.log(), /fault point reached.*segment-rolled/);
      assertRecovered(await recoveredIds({ dataDir, storeOptions }, "q"), confirmed);
    }));

  it("during online compaction, after its copies are fsynced and before the old segment goes", () =>
    withDir(async (dataDir) => {
      // Small segments, 10 ready messages in memory per queue, compaction every 50 ms.
      const storeOptions = { messageStore: { segmentBytes: 16 * 1024, paging: { maxEntries: 10, maxBytes: 1 << 20 }, compactEveryMs: 50 } };
      const b = await spawnChildBroker({ dataDir, storeOptions, env: { CONEY_FAULT_POINT: "compaction-synced:kill" } });
      const conn = await amqp.connect(b.url);
      conn.on("error", () => undefined);
      const ch: ConfirmChannel = await conn.createConfirmChannel();
      ch.on("error", () => undefined);
      await ch.assertQueue("drained", { durable: true });
      await ch.assertQueue("kept", { durable: true });
      // Two "drained" messages for each "kept" one: once "drained" is consumed, the old segments
      // are a third live, all of it paged out: compaction's candidates.
      const kept: string[] = [];
      for (let i = 0; i < 300; i++) {
        const id = String(i);
        if (i % 3 === 2) kept.push(id);
        ch.publish("", i % 3 === 2 ? "kept" : "drained", BODY, { persistent: true, messageId: id });
      }
      await ch.waitForConfirms();
      const getter = await conn.createChannel();
      getter.on("error", () => undefined);
      await drain(getter, "drained").catch(() => undefined);
      await withTimeout(b.exited, 10_000, "the broker to die in online compaction");
      assert.match(b.log(), /fault point reached.*compaction-synced/);
      // Both copies of each moved record are on disk now: the restart keeps one of each.
      assertRecovered(await recoveredIds({ dataDir, storeOptions }, "kept"), kept);
    }));

  it("during a definitions save, between the temporary file and its rename", () =>
    withDir(async (dataDir) => {
      // Save 1 is the boot's, save 2 declares "first", save 3 (declaring "second") dies before its rename.
      const b = await spawnChildBroker({ dataDir, env: { CONEY_FAULT_POINT: "definitions-written:kill:3" } });
      const conn = await amqp.connect(b.url);
      conn.on("error", () => undefined);
      const ch = await conn.createChannel();
      ch.on("error", () => undefined);
      await ch.assertQueue("first", { durable: true });
      const saved = (): string => readFileSync(join(dataDir, "definitions.json"), "utf8");
      await withTimeout(
        (async () => {
          while (!saved().includes('"first"')) await new Promise((r) => setTimeout(r, 20));
        })(),
        5000,
        "the save of the first queue",
      );
      await ch.assertQueue("second", { durable: true });
      await withTimeout(b.exited, 10_000, "the broker to die in its definitions save");
      assert.match(b.log(), /fault point reached.*definitions-written/);
      assert.ok(readdirSync(dataDir).some((f) => f.startsWith("definitions.json.tmp-")), "the crash left the new file unrenamed");
      assert.ok(JSON.parse(saved()), "the old file is whole");
      const b2 = await spawnChildBroker({ dataDir });
      try {
        const c2 = await amqp.connect(b2.url);
        const ch2 = await c2.createChannel();
        await ch2.checkQueue("first");
        await c2.close();
        assert.deepEqual(readdirSync(dataDir).filter((f) => f.includes(".tmp-")), [], "the leftover temporary file is removed at start");
      } finally {
        await b2.kill();
      }
    }));
});
