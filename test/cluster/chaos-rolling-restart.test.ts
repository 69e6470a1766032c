// Chaos case 5 (issue 23): a rolling restart — each node in turn stopped with SIGTERM, restarted,
// and waited for until it is back in the in-sync set — under a publisher and a consumer. No
// confirmed message is lost, and the consumer is given the same message twice only as a
// redelivery (flagged redelivered). A body can also come twice because the publisher republished
// what was not confirmed: that is a new message, told apart by its messageId.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { drainQueue, ids, publishThroughFailures, withCluster } from "./cluster-traffic.js";
import { chaosFigures } from "./chaos-report.js";

describe("chaos: rolling restart under load", { timeout: 115_000 }, () => {
  it("loses no confirmed message; duplicates to the consumer are flagged redelivered", async (t) => {
    await withCluster(async (cluster) => {
      let stop = false;
      const delivered = new Set<string>();
      const deliveredIds = new Set<string>();
      const unflaggedDuplicates: string[] = [];
      let duplicates = 0;
      let redeliveries = 0;
      // The consumer: any node, reconnecting whenever its connection drops, acking each message.
      const consumer = (async () => {
        let attempt = 0;
        while (!stop) {
          const live = cluster.nodes.filter((n) => n.proc !== null);
          const node = live[attempt++ % live.length]!;
          try {
            const conn = await amqp.connect(cluster.url(node));
            conn.on("error", () => undefined);
            const ch = await conn.createChannel();
            ch.on("error", () => undefined);
            await ch.assertQueue("chaos-roll-q", { durable: true });
            await ch.prefetch(50);
            await ch.consume("chaos-roll-q", (m) => {
              if (!m) return;
              const body = m.content.toString();
              const id = String(m.properties.messageId);
              if (delivered.has(body)) duplicates++;
              if (deliveredIds.has(id)) {
                redeliveries++;
                if (!m.fields.redelivered) unflaggedDuplicates.push(id);
              }
              delivered.add(body);
              deliveredIds.add(id);
              ch.ack(m);
            });
            await new Promise<void>((resolve) => {
              conn.on("close", () => resolve());
              const poll = setInterval(() => {
                if (stop) {
                  clearInterval(poll);
                  void conn.close().catch(() => undefined).finally(resolve);
                }
              }, 100);
              conn.on("close", () => clearInterval(poll));
            });
          } catch {
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      })();
      let rolled = false;
      const publisher = publishThroughFailures(cluster, "chaos-roll-q", "r-", 1_000_000, Infinity, async () => undefined, () => rolled, 100_000);
      const restartTimes: number[] = [];
      // Followers first, the leader last (as an operator would), each back in sync before the next.
      const leader = await cluster.waitForLeader();
      for (const n of [...cluster.nodes.filter((x) => x !== leader), leader]) {
        await new Promise((r) => setTimeout(r, 1000));
        const at = Date.now();
        await cluster.kill(n, "SIGTERM");
        cluster.startNode(n);
        await cluster.waitForInSync(3, 40_000);
        restartTimes.push(Date.now() - at);
      }
      rolled = true;
      const run = await publisher;
      const expected = ids("r-", run.confirmed);
      // Whatever the consumer did not get yet, a final drain reads.
      const counts = { duplicates: 0 };
      const rest = await drainQueue(cluster, "chaos-roll-q", new Set([...expected].filter((e) => !delivered.has(e))), 30_000, counts);
      stop = true;
      await consumer;
      const seen = new Set([...delivered, ...rest]);
      const f = chaosFigures(t, "5 rolling restart (SIGTERM) under load", expected, seen, duplicates + counts.duplicates, null, { restartsMs: restartTimes.join(" / "), redeliveries });
      assert.equal(f.lost, 0);
      assert.deepEqual(unflaggedDuplicates.slice(0, 5), [], "a message delivered twice without the redelivered flag");
    }, { leaseTtl: 2 });
  });
});
