// A spread cluster (`--cluster-mode spread`): /api/queues read on a node that is not a queue's home
// answers the home's counts no older than the bound (INFO_MAX_AGE_MS) on the first read after idle —
// the same RemoteQueue counts as under `coney --workers N` (src/broker/queue/remote-counts.ts), so
// the note "a read right after a change may show the previous count" no longer holds. Two real
// nodes on a real etcd; amqplib and the management API.
import { describe } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { spreadCluster } from "./spread-fixture.js";
import { INFO_MAX_AGE_MS } from "../../src/broker/queue/remote-queue.js";

interface QueueJson {
  name: string;
  node: string;
  messages: number;
  counts_stale?: boolean;
}

describe("a spread cluster: counts of a queue homed on another node, fresh on the first read", () => {
  const sc = spreadCluster({ size: 2, protocols: false });

  sc.it("one queue and a list of queues homed on node0, read once through node1 after idle: exact counts", async () => {
    const ch = await (await sc.connect(0)).createConfirmChannel();
    const names = Array.from({ length: 10 }, (_, i) => `sfc-${i}`);
    // Declared through node0 (client-local): homed there.
    for (const q of names) await ch.assertQueue(q, { durable: true });
    for (const q of names) await sc.seenEverywhere(q, 200);
    const one = async (): Promise<QueueJson> => (await sc.api(1, "GET", "/api/queues/%2F/sfc-0")).json as QueueJson;
    const first = await one();
    assert.equal(first.node, sc.node(0).name);
    assert.equal(first.messages, 0);
    // Every queue changes, then nothing happens for longer than the bound.
    for (let i = 0; i < names.length; i++) for (let k = 0; k <= i; k++) ch.sendToQueue(names[i]!, Buffer.from(`m${k}`), { persistent: true });
    await ch.waitForConfirms();
    await sleep(INFO_MAX_AGE_MS + 100);
    const again = await one();
    assert.equal(again.messages, 1);
    assert.equal(again.counts_stale, undefined);
    await sleep(INFO_MAX_AGE_MS + 100);
    const list = (await sc.api(1, "GET", "/api/queues/%2F")).json as QueueJson[];
    for (let i = 0; i < names.length; i++) {
      const q = list.find((x) => x.name === names[i]);
      assert.ok(q !== undefined, `${names[i]} listed on node1`);
      assert.equal(q.node, sc.node(0).name);
      assert.equal(q.messages, i + 1, `${names[i]}'s count through node1`);
    }
  });
});
