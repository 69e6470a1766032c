// Queue groups on one node (docs/CLUSTERING.md, "Build order" step 3): each group has its own
// message store under <data>/groups/g<i>/, a queue's messages live only in its group's store, and
// G is fixed with the data. Real broker on port 0, driven by amqplib and the management API.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import type { StartOptions } from "../../src/start-broker.js";
import { apiClient } from "../helpers/http-client.js";
import { txRpc } from "../helpers/amqplib-tx.js";
import { ctl } from "../cli/run-coneyctl.js";
import { drain } from "./store-harness.js";

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), "coney-groups-"));
  dirs.push(d);
  return d;
};
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs `fn` against a broker on `dataDir`, closed afterwards whatever happens. */
async function withBroker<T>(dataDir: string, options: StartOptions, fn: (b: TestBroker) => Promise<T>): Promise<T> {
  const b = await startTestBroker({ ...options, dataDir });
  try {
    return await fn(b);
  } finally {
    await b.close();
  }
}

/** Reads a stream from its first offset until `count` messages came. */
async function readStream(url: string, name: string, count: number): Promise<string[]> {
  const conn = await amqp.connect(url);
  const ch = await conn.createChannel();
  await ch.prefetch(count);
  const got: string[] = [];
  await new Promise<void>((resolve) => {
    void ch.consume(name, (m) => {
      got.push(m!.content.toString());
      ch.ack(m!);
      if (got.length === count) resolve();
    }, { arguments: { "x-stream-offset": "first" } });
  });
  await conn.close();
  return got;
}
const CONEY = new URL("../../../bin/coney.js", import.meta.url).pathname;
const fixture = new URL("../../../test/store/fixtures/old-layout", import.meta.url).pathname;

/** The group labels the management API shows for queues, asked one after another. */
async function groupsOf(b: TestBroker, names: readonly string[]): Promise<(string | null)[]> {
  const out: (string | null)[] = [];
  for (const n of names) out.push(await groupOf(b, n));
  return out;
}

/** The group label the management API shows for a queue. */
async function groupOf(b: TestBroker, name: string): Promise<string | null> {
  const r = await apiClient(() => b.httpUrl)("GET", `/api/queues/%2F/${encodeURIComponent(name)}`);
  assert.equal(r.status, 200);
  return r.json.group as string | null;
}

/** Segment files in a group's store directory. */
const segmentsOf = (dataDir: string, group: number): string[] => readdirSync(join(dataDir, "groups", `g${group}`, "messages")).filter((f) => f.endsWith(".seg"));

describe("queue groups: one store per group", () => {
  it("spreads queues over the groups, the least loaded first, and shows each queue's group", async () => {
    const dataDir = tmp();
    await withBroker(dataDir, { queueGroups: 4 }, async (b) => {
      const conn = await amqp.connect(b.amqpUrl);
      const ch = await conn.createChannel();
      const names = Array.from({ length: 8 }, (_, i) => `spread-${i}`);
      for (const n of names) await ch.assertQueue(n, { durable: true });
      const groups = await groupsOf(b, names);
      const perGroup = new Map<string, number>();
      for (const g of groups) perGroup.set(g!, (perGroup.get(g!) ?? 0) + 1);
      assert.deepEqual([...perGroup.keys()].sort(), ["g0", "g1", "g2", "g3"]);
      assert.deepEqual([...perGroup.values()], [2, 2, 2, 2], `8 queues over 4 groups: ${JSON.stringify(groups)}`);
      // An exclusive queue lives with its connection, in no group.
      const excl = await ch.assertQueue("", { exclusive: true });
      assert.equal(await groupOf(b, excl.queue), null);
      // coneyctl shows the same groups.
      const listed = await ctl(b, ["list_queues", "name", "group"]);
      assert.equal(listed.code, 0, listed.stderr);
      const rows = new Map(listed.stdout.split("\n").slice(3).filter((l) => l.startsWith("spread-")).map((l) => l.split("\t") as [string, string]));
      assert.deepEqual(names.map((n) => rows.get(n)), groups);
      await conn.close();
    });
    // The layout: the marker and one store per group; no single store at <data>/messages.
    assert.deepEqual(JSON.parse(readFileSync(join(dataDir, "groups", "queue_groups.json"), "utf8")), { queue_groups: 4 });
    for (let g = 0; g < 4; g++) assert.ok(existsSync(join(dataDir, "groups", `g${g}`, "messages")), `g${g}'s store`);
    assert.equal(existsSync(join(dataDir, "messages")), false);
  });

  it("keeps each group's persistent messages in that group's store across a restart, with the same groups", async () => {
    const dataDir = tmp();
    const names = ["keep-a", "keep-b", "keep-c", "keep-d"];
    const before = new Map<string, string | null>();
    await withBroker(dataDir, { queueGroups: 3 }, async (b) => {
      const conn = await amqp.connect(b.amqpUrl);
      const ch = await conn.createConfirmChannel();
      for (const n of names) await ch.assertQueue(n, { durable: true });
      await ch.assertQueue("keep-prio", { durable: true, arguments: { "x-max-priority": 4 } });
      for (const n of names) for (let i = 0; i < 25; i++) ch.sendToQueue(n, Buffer.from(`${n}-${i}`), { persistent: true });
      for (let i = 0; i < 5; i++) ch.sendToQueue("keep-prio", Buffer.from(`p${i}`), { persistent: true, priority: i });
      await ch.waitForConfirms();
      for (const n of [...names, "keep-prio"]) before.set(n, await groupOf(b, n));
      await conn.close();
    });
    // Each group's store holds records only for its own queues: a group without queues has no segment.
    const used = new Set([...before.values()].map((g) => Number(g!.slice(1))));
    for (let g = 0; g < 3; g++) assert.equal(segmentsOf(dataDir, g).length > 0, used.has(g), `g${g} has segments only if it has queues`);
    // No setting: the data dir's 3 groups are used.
    await withBroker(dataDir, {}, async (b) => {
      const conn = await amqp.connect(b.amqpUrl);
      const ch = await conn.createChannel();
      for (const n of names) {
        assert.equal(await groupOf(b, n), before.get(n), `${n} is back in its group`);
        const got = await drain(ch, n);
        assert.deepEqual(got.map((m) => m.content.toString()), Array.from({ length: 25 }, (_, i) => `${n}-${i}`));
      }
      const prio = await drain(ch, "keep-prio");
      assert.deepEqual(prio.map((m) => m.content.toString()), ["p4", "p3", "p2", "p1", "p0"]);
      await conn.close();
    });
  });

  it("keeps a stream's files under its group's streams/ and reads them back after a restart", async () => {
    const dataDir = tmp();
    const group = await withBroker(dataDir, { queueGroups: 2 }, async (b) => {
      const conn = await amqp.connect(b.amqpUrl);
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue("grouped-stream", { durable: true, arguments: { "x-queue-type": "stream" } });
      for (let i = 0; i < 12; i++) ch.sendToQueue("grouped-stream", Buffer.from(`s${i}`), { persistent: true });
      await ch.waitForConfirms();
      await conn.close();
      return await groupOf(b, "grouped-stream");
    });
    assert.ok(group === "g0" || group === "g1");
    const other = group === "g0" ? "g1" : "g0";
    const streamsOf = (g: string): string[] => (existsSync(join(dataDir, "groups", g, "streams")) ? readdirSync(join(dataDir, "groups", g, "streams")) : []);
    assert.equal(streamsOf(group).length, 1, "the stream's directory is in its group");
    assert.equal(streamsOf(other).length, 0);
    assert.equal(existsSync(join(dataDir, "streams")), false);
    await withBroker(dataDir, {}, async (b) => {
      assert.deepEqual(await readStream(b.amqpUrl, "grouped-stream", 12), Array.from({ length: 12 }, (_, i) => `s${i}`));
    });
  });

  it("confirms a publish that reaches queues in several groups, and every copy survives a restart", async () => {
    const dataDir = tmp();
    const names = ["fan-0", "fan-1", "fan-2", "fan-3"];
    await withBroker(dataDir, { queueGroups: 4 }, async (b) => {
      const conn = await amqp.connect(b.amqpUrl);
      const ch = await conn.createConfirmChannel();
      await ch.assertExchange("fan", "fanout", { durable: true });
      for (const n of names) {
        await ch.assertQueue(n, { durable: true });
        await ch.bindQueue(n, "fan", "");
      }
      assert.equal(new Set(await groupsOf(b, names)).size, 4, "one queue per group");
      // Each publish waits for four group commits (grouped-journal.test.ts shows the waiting); none is nacked.
      const confirmed = await Promise.all(
        Array.from({ length: 200 }, (_, i) => new Promise<boolean>((resolve) => ch.publish("fan", "", Buffer.from(`m${i}`), { persistent: true }, (err) => resolve(err === null || err === undefined)))),
      );
      assert.equal(confirmed.filter((ok) => ok).length, 200);
      // tx.commit waits for the same stores: commit-ok comes once all four have synced.
      const tx = await conn.createChannel();
      await txRpc(tx, "txSelect");
      for (let i = 0; i < 10; i++) tx.publish("fan", "", Buffer.from(`tx${i}`), { persistent: true });
      await txRpc(tx, "txCommit");
      await conn.close();
    });
    for (let g = 0; g < 4; g++) assert.ok(segmentsOf(dataDir, g).length > 0, `g${g} wrote its copy`);
    await withBroker(dataDir, {}, async (b) => {
      for (const n of names) assert.equal(b.broker.vhost("/").queues.get(n)?.messageCount, 210, n);
    });
  });

  it("a purge and a delete in one group leave another group's queues and store alone", async () => {
    const dataDir = tmp();
    const names = ["pd-0", "pd-1", "pd-2", "pd-3"];
    const { inG0, inG1, g1Segments } = await withBroker(dataDir, { queueGroups: 2, messageStore: { segmentBytes: 4096, compactEveryMs: 0 } }, async (b) => {
      const conn = await amqp.connect(b.amqpUrl);
      const ch = await conn.createConfirmChannel();
      // Four queues over two groups: two in each.
      for (const n of names) await ch.assertQueue(n, { durable: true });
      const groups = await groupsOf(b, names);
      const inG0 = names.filter((_, i) => groups[i] === "g0");
      const inG1 = names.filter((_, i) => groups[i] === "g1");
      assert.equal(inG0.length, 2);
      assert.equal(inG1.length, 2);
      for (const n of names) for (let i = 0; i < 40; i++) ch.sendToQueue(n, Buffer.alloc(200, i), { persistent: true, messageId: `${n}-${i}` });
      await ch.waitForConfirms();
      const g1Segments = segmentsOf(dataDir, 1);
      // Purge one queue of g0 and delete the other; g1's queues keep everything.
      assert.equal((await ch.purgeQueue(inG0[0]!)).messageCount, 40);
      assert.equal((await ch.deleteQueue(inG0[1]!)).messageCount, 40);
      for (const n of inG1) assert.equal(b.broker.vhost("/").queues.get(n)?.messageCount, 40);
      // A publish to g1 after them is confirmed as usual.
      ch.sendToQueue(inG1[0]!, Buffer.from("later"), { persistent: true, messageId: "later" });
      await ch.waitForConfirms();
      await conn.close();
      return { inG0, inG1, g1Segments };
    });
    // g1's files are all still there (the later message went to its current segment or a new one).
    for (const f of g1Segments) assert.ok(segmentsOf(dataDir, 1).includes(f), `g1 kept ${f}`);
    await withBroker(dataDir, {}, async (b) => {
      const v = b.broker.vhost("/");
      assert.equal(v.queues.get(inG0[0]!)?.messageCount, 0, "the purged queue stays empty");
      assert.equal(v.queues.has(inG0[1]!), false);
      const conn = await amqp.connect(b.amqpUrl);
      const ch = await conn.createChannel();
      for (const [k, n] of inG1.entries()) {
        const want = Array.from({ length: 40 }, (_, i) => `${n}-${i}`);
        assert.deepEqual((await drain(ch, n)).map((m) => m.properties.messageId), k === 0 ? [...want, "later"] : want);
      }
      await conn.close();
    });
  });

  it("refuses a different number of groups under existing data, with a clear reason", async () => {
    const dataDir = tmp();
    await withBroker(dataDir, { queueGroups: 4 }, async () => undefined);
    await assert.rejects(startTestBroker({ dataDir, queueGroups: 2 }), /created with queue_groups = 4, and queue_groups = 2 was asked/);
    // The coney command says why and exits with 78 (EX_CONFIG), no stack trace.
    const run = spawnSync(process.execPath, [CONEY, "--amqp-port", "0", "--http-port", "off", "--prometheus-port", "off", "--mqtt-port", "off", "--web-mqtt-port", "off", "--stomp-port", "off", "--web-stomp-port", "off", "--stream-port", "off", "--bind", "127.0.0.1", "--data-dir", dataDir, "--queue-groups", "3"], { encoding: "utf8", timeout: 20_000 });
    assert.equal(run.status, 78, run.stderr);
    assert.match(run.stderr, /cannot start: the data dir .* was created with queue_groups = 4, and queue_groups = 3 was asked/);
    assert.doesNotMatch(run.stderr, /\n\s+at /, "no stack trace");
    // The same setting, or none, starts.
    await withBroker(dataDir, { queueGroups: 4 }, async () => undefined);
    await withBroker(dataDir, {}, async (b) => assert.equal(b.broker.vhost("/").queues.size, 0));
  });
});

describe("queue groups: a data dir from before groups", () => {
  it("recovers unchanged as one group, and refuses to be split into several", async () => {
    // Written by the build before queue groups (7f65154): one store at <data>/messages, streams at <data>/streams.
    const dataDir = tmp();
    cpSync(fixture, dataDir, { recursive: true });
    await assert.rejects(startTestBroker({ dataDir, queueGroups: 4 }), /created with queue_groups = 1, and queue_groups = 4 was asked/);
    await withBroker(dataDir, {}, async (b) => {
      assert.equal(existsSync(join(dataDir, "groups")), false, "no groups directory is made for one group");
      assert.equal(await groupOf(b, "old-classic"), "g0");
      const conn = await amqp.connect(b.amqpUrl);
      const ch = await conn.createChannel();
      const classic = await drain(ch, "old-classic");
      // classic-0 was acked before the stop; classic-1 was delivered and not acked: redelivered.
      assert.deepEqual(classic.map((m) => m.content.toString()), Array.from({ length: 9 }, (_, i) => `classic-${i + 1}`));
      assert.equal(classic[0]!.fields.redelivered, true);
      assert.equal(classic[1]!.fields.redelivered, false);
      const prio = await drain(ch, "old-priority");
      assert.deepEqual(prio.map((m) => m.content.toString()), ["prio-2", "prio-5", "prio-1", "prio-4", "prio-0", "prio-3"]);
      assert.deepEqual(await readStream(b.amqpUrl, "old-stream", 7), Array.from({ length: 7 }, (_, i) => `stream-${i}`));
      // It keeps working: a new confirmed message goes to the same single store.
      const cch = await conn.createConfirmChannel();
      cch.sendToQueue("old-classic", Buffer.from("after"), { persistent: true });
      await cch.waitForConfirms();
      await conn.close();
    });
    await withBroker(dataDir, {}, async (b) => assert.equal(b.broker.vhost("/").queues.get("old-classic")?.messageCount, 1));
  });
});
