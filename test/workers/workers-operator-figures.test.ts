// What an operator reads from either worker of `coney --workers 2` must not depend on which worker
// the load balancer (here the primary's round-robin) handed the request to — found on a new
// operator's pass (issue 42, "operators see one broker"):
// - a queue's `messages_unacknowledged` (and so `messages`) read through the worker that does not
//   lead it was 0: the leader's counts crossed the link without the unacknowledged ones;
// - `/api/healthchecks/node/<the other worker>` answered 503 "not reachable" for a running worker.
// RabbitMQ 3.10 answers both the same from every node. Real process tree, real amqplib client.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../helpers/wait.js";
import type { PinnedApi } from "./pinned-workers.js";
import { pinnedWorkersSuite } from "./pinned-workers-suite.js";

interface QueueCounts {
  readonly node: string;
  readonly messages: number;
  readonly messages_ready: number;
  readonly messages_unacknowledged: number;
}

describe("coney --workers 2: the same figures and health from either worker", () => {
  const suite = pinnedWorkersSuite(["--in-memory"]);
  const { apis } = suite;

  it("a queue's unacknowledged messages are counted by the worker that does not lead it", async () => {
    const conn = await suite.connect();
    const ch = await conn.createConfirmChannel();
    const queue = "figures-unacked";
    await ch.assertQueue(queue, { durable: false });
    for (let i = 0; i < 10; i++) ch.sendToQueue(queue, Buffer.from(`m${i}`));
    await ch.waitForConfirms();
    await ch.prefetch(2);
    let delivered = 0;
    const held = new Promise<void>((resolve) => {
      void ch.consume(queue, () => {
        if (++delivered === 2) resolve();
      });
    });
    await held;
    const read = async (api: PinnedApi): Promise<QueueCounts> => {
      const r = await api.request("GET", `/api/queues/%2F/${queue}`);
      assert.equal(r.status, 200, r.text);
      return r.json as QueueCounts;
    };
    for (const api of apis) {
      // A worker that does not lead the queue holds its leader's last reported counts, asked again when read.
      await eventually(async () => (await read(api)).messages_unacknowledged === 2, 10_000, `2 unacknowledged on ${api.node}`);
      const q = await read(api);
      assert.deepEqual({ messages: q.messages, ready: q.messages_ready, unacked: q.messages_unacknowledged }, { messages: 10, ready: 8, unacked: 2 }, `${queue} through ${api.node} (led by ${q.node})`);
    }
    // The whole list reads the same too.
    for (const api of apis) {
      await eventually(async () => {
        const list = (await api.request("GET", "/api/queues/%2F?columns=name,messages,messages_unacknowledged")).json as Array<{ name: string; messages: number; messages_unacknowledged: number }>;
        const q = list.find((x) => x.name === queue);
        return q?.messages === 10 && q.messages_unacknowledged === 2;
      }, 10_000, `the list through ${api.node}`);
    }
  });

  it("/api/healthchecks/node/<node> is ok for every running worker, through either worker", async () => {
    for (const api of apis) {
      for (const target of apis) {
        const r = await api.request("GET", `/api/healthchecks/node/${encodeURIComponent(target.node)}`);
        assert.deepEqual({ status: r.status, body: r.json }, { status: 200, body: { status: "ok" } }, `${target.node} checked through ${api.node}`);
      }
      const unknown = await api.request("GET", "/api/healthchecks/node/nobody%40nowhere");
      assert.deepEqual({ status: unknown.status, body: unknown.json }, { status: 503, body: { status: "failed", reason: "node nobody@nowhere is not reachable" } });
    }
  });
});
