// The pieces of a single node's data taken over by `coney --workers N`
// (src/workers/single-node-takeover.ts), in this process on real store files: a takeover stopped
// part way (its marker saying "moving") is finished by the next start with every message once; a
// takeover stopped while it removed the old files finishes the removal; what cannot be taken over
// is refused before anything is written. The whole path through real processes is in
// workers-single-node-takeover.test.ts.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { startTestBroker } from "../helpers/broker.js";
import { createLogger } from "../../src/logging/logger.js";
import { queueGroupOf } from "../../src/broker/index.js";
import { QueueGroupsMismatch } from "../../src/store/queue-groups-file.js";
import { moveStreams, openGroups } from "../../src/workers/legacy-worker-stores.js";
import { drainInto, readDefinitions } from "../../src/workers/store-drain.js";
import { beginTakeover, refuseSpreadOverOtherData, takeOverSingleNode } from "../../src/workers/single-node-takeover.js";
import { takeBackFromWorkers } from "../../src/workers/workers-to-single-node.js";

const logger = createLogger("silent");
const GROUPS = 4;
const QUEUES = ["p-a", "p-b", "p-c"];

/** A single node's data dir: three queues (one quorum) of ten persistent messages, a stream of five entries. */
async function singleNode(queueGroups?: number): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-takeover-pieces-"));
  const b = await startTestBroker({ dataDir, ...(queueGroups === undefined ? {} : { queueGroups }) });
  const c = await amqp.connect(b.amqpUrl);
  const ch = await c.createConfirmChannel();
  for (const q of QUEUES) {
    // One of them a quorum queue: its messages are in the same single store, and move the same way.
    await ch.assertQueue(q, { durable: true, ...(q === "p-c" ? { arguments: { "x-queue-type": "quorum" } } : {}) });
    for (let k = 0; k < 10; k++) ch.sendToQueue(q, Buffer.from(`${q}:${k}`), { persistent: true });
  }
  await ch.assertQueue("p-stream", { durable: true, arguments: { "x-queue-type": "stream" } });
  for (let k = 0; k < 5; k++) ch.sendToQueue("p-stream", Buffer.from(`s:${k}`), { persistent: true });
  await ch.waitForConfirms();
  await c.close();
  await b.close();
  return dataDir;
}

/** What the workers would find: each queue's bodies in its group's store (read as a worker's broker reads them). */
async function groupContents(dataDir: string): Promise<Record<string, string[]>> {
  const defs = readDefinitions(join(dataDir, "nodes", "w0"))!;
  const { broker, stores } = openGroups(dataDir, GROUPS, [defs], logger);
  const out: Record<string, string[]> = {};
  try {
    const v = broker.vhosts.get("/")!;
    for (const q of QUEUES) {
      const bodies: string[] = [];
      const queue = v.queues.get(q)!;
      for (let e = queue.get(false); e !== null; e = queue.get(false)) bodies.push(e.message.body.toString());
      out[q] = bodies;
    }
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
  return out;
}

const expected = Object.fromEntries(QUEUES.map((q) => [q, Array.from({ length: 10 }, (_, k) => `${q}:${k}`)]));

describe("a single node's data taken over by the workers, piece by piece", () => {
  it("a takeover stopped after its first steps is finished by the next start, every message once", async () => {
    const dataDir = await singleNode();
    try {
      // The first start: the marker, the groups, the streams renamed, then the process dies.
      assert.equal(beginTakeover(dataDir, false, GROUPS, 2), true);
      assert.equal(JSON.parse(readFileSync(join(dataDir, "single-node-takeover.json"), "utf8")).state, "moving");
      await assert.rejects(takeBackFromWorkers(dataDir, null, logger), /single-node-takeover\.json\) and is not finished/, "a single node is refused once the takeover began");
      assert.equal(moveStreams(dataDir, dataDir, GROUPS, readDefinitions(dataDir)), 1);
      // The next start resumes it (the marker says "moving"; the data dir's groups are recorded).
      assert.equal(beginTakeover(dataDir, false, GROUPS, 2), true);
      const report = await takeOverSingleNode(dataDir, 2, GROUPS, logger);
      assert.equal(report.messages, 30);
      assert.equal(report.streams, 0, "the stream was moved by the first start");
      const streamGroup = queueGroupOf("/", "p-stream", GROUPS);
      assert.equal(readdirSync(join(dataDir, "groups", `g${streamGroup}`, "streams")).length, 1, "the stream is in its group's directory");
      assert.deepEqual(await groupContents(dataDir), expected);
      // Done: a later start takes nothing over.
      assert.equal(beginTakeover(dataDir, true, GROUPS, 2), false);
      assert.equal(beginTakeover(dataDir, false, GROUPS, 2), false);
      assert.deepEqual(await groupContents(dataDir), expected, "nothing moved twice");
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("a takeover stopped after the messages were moved, before its marker said done, moves nothing twice", async () => {
    const dataDir = await singleNode();
    try {
      // The first start: up to the messages' step (appended to the groups, fsynced, acknowledged in the old store), then the process dies.
      assert.equal(beginTakeover(dataDir, false, GROUPS, 2), true);
      moveStreams(dataDir, dataDir, GROUPS, readDefinitions(dataDir));
      const target = openGroups(dataDir, GROUPS, [readDefinitions(dataDir)!], logger, join(dataDir, "nodes", "w0", "messages"));
      assert.equal((await drainInto(dataDir, target.broker, logger, true)).moved, 30);
      await Promise.all(target.stores.map((s) => s.close()));
      assert.ok(existsSync(join(dataDir, "messages")), "the old store is kept until the takeover is done");
      // The next start redoes every step: the old store's messages were acknowledged, so none moves again.
      assert.equal(beginTakeover(dataDir, false, GROUPS, 2), true);
      const again = await takeOverSingleNode(dataDir, 2, GROUPS, logger);
      assert.equal(again.messages, 0);
      assert.deepEqual(await groupContents(dataDir), expected);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("a clean-up cut short is finished by the next start", async () => {
    const dataDir = await singleNode();
    try {
      assert.equal(beginTakeover(dataDir, false, GROUPS, 2), true);
      await takeOverSingleNode(dataDir, 2, GROUPS, logger);
      mkdirSync(join(dataDir, "messages"));
      writeFileSync(join(dataDir, "messages", "0.seg"), "left");
      writeFileSync(join(dataDir, "mqtt-retained.json"), "{}");
      assert.equal(beginTakeover(dataDir, false, GROUPS, 2), false);
      assert.ok(!existsSync(join(dataDir, "messages")), "the old store removed");
      assert.ok(existsSync(join(dataDir, "single-node-migrated", "mqtt-retained.json")), "the small file moved aside");
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("a single node that ran with queue_groups = 2 is taken over: its groups (placed by load) drained into the workers' (by hash)", async () => {
    const dataDir = await singleNode(2);
    try {
      assert.equal(beginTakeover(dataDir, false, GROUPS, 2), true);
      assert.ok(existsSync(join(dataDir, "single-node-groups", "groups", "queue_groups.json")), "the single node's groups set aside");
      // Cut short after the setting aside: the next start goes on from there.
      assert.equal(beginTakeover(dataDir, false, GROUPS, 2), true);
      const report = await takeOverSingleNode(dataDir, 2, GROUPS, logger);
      assert.equal(report.messages, 30);
      assert.equal(report.streams, 1);
      const streamGroup = queueGroupOf("/", "p-stream", GROUPS);
      assert.deepEqual(readdirSync(join(dataDir, "groups", `g${streamGroup}`, "streams")).length, 1, "the stream is in its hash group's directory");
      assert.deepEqual(await groupContents(dataDir), expected);
      assert.ok(!existsSync(join(dataDir, "single-node-groups")), "the drained groups removed once done");
      assert.equal(JSON.parse(readFileSync(join(dataDir, "groups", "queue_groups.json"), "utf8")).queue_groups, GROUPS);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("refuses what it cannot take over before writing anything", async () => {
    const plain = await singleNode();
    try {
      assert.throws(() => beginTakeover(plain, false, 1, 2), (e: Error) => e instanceof QueueGroupsMismatch && /queue_groups = 1 was asked/.test(e.message));
      assert.ok(!existsSync(join(plain, "single-node-takeover.json")));
      assert.throws(() => refuseSpreadOverOtherData(plain), /workers as spread-cluster nodes keep theirs under/);
      assert.equal(await takeBackFromWorkers(plain, null, logger), null, "a single node's own data: nothing to take back");
      writeFileSync(join(plain, "workers.json"), "{}");
      assert.throws(() => refuseSpreadOverOtherData(plain), /coney --workers N \(not as spread-cluster nodes\)/);
      await assert.rejects(takeBackFromWorkers(plain, 4, logger), /queue_groups = 4 was asked/);
      assert.ok(!existsSync(join(plain, "workers-to-single-node.json")), "a refusal writes nothing");
      const empty = mkdtempSync(join(tmpdir(), "coney-takeover-empty-"));
      refuseSpreadOverOtherData(empty);
      assert.equal(beginTakeover(empty, false, GROUPS, 2), false, "a new data dir: nothing to take over");
      rmSync(empty, { recursive: true, force: true });
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });
});
