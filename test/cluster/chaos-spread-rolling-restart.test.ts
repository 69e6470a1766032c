// Chaos case 10 (issue 42, "Faults"): a rolling restart of a spread cluster (`--cluster-mode
// spread`, stage 1) under load. Three real nodes on a real etcd, two durable queues homed on each;
// on every node a publisher with confirms to every queue and a consumer of every queue. Each node
// in turn is stopped with SIGTERM (its clients' connections close with it), started again on its
// data dir, and waited for until it serves (links up to both others) and each of its queues
// confirms again through another node; then it gets a new publisher and consumer, and the next
// node goes. Measured: per restart, the time from the SIGTERM to its queues confirming again, and
// the longest gap between confirms of the other nodes' queues across it (printed). Asserted: every
// node's queues confirm again within 15 s of its restart; at the end every queue is consumable and
// every confirmed message is consumed (0 lost); a message delivered twice is flagged redelivered.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, withTimeout } from "../helpers/wait.js";
import type { NodeInfo } from "./cluster-fixture.js";
import { chaosFigures } from "./chaos-report.js";
import { Publisher, Tally, consumeAll, longestGap } from "./chaos-load.js";
import { declareHomed, serving, spreadSuite, startSpread } from "./spread-fixture.js";

const WINDOW = 4;
const QUEUES_PER_NODE = 2;
/** Confirms each live publisher must see on the other nodes' queues between two restarts. */
const PHASE_CONFIRMS = 200;

describe("chaos: a rolling restart of a spread cluster under load", { timeout: 150_000 }, () => {
  const { cluster, connect, pass } = spreadSuite(3);

  it("each node stopped (SIGTERM) and restarted in turn: its queues serve again, the others keep confirming, no confirmed message lost", async (t) => {
    await startSpread(cluster);
    // Homes by the declaring node (client-local); every node knows them before the load.
    const { all, homedOn } = await declareHomed(cluster, connect, "chaos-roll-sp", QUEUES_PER_NODE);

    const tally = new Tally();
    /** Every publisher of the run (a restarted node's old one stays here with what it confirmed). */
    const everyPublisher: Publisher[] = [];
    const current = new Map<NodeInfo, Publisher>();
    let generation = 0;
    const clientsOn = async (n: NodeInfo): Promise<void> => {
      await consumeAll(await connect(n), all, tally);
      const p = new Publisher(`${n.name}#${generation++}`, await connect(n), WINDOW);
      everyPublisher.push(p);
      current.set(n, p);
      await p.start(all);
    };
    for (const n of cluster.nodes) await clientsOn(n);
    await eventually(() => [...current.values()].every((p) => all.every((q) => p.confirmTimes.get(q)!.length >= 20)), 30_000, "every queue confirming from every node");

    const restarts: Array<{ node: string; serveAgainMs: number; longestGapMs: number }> = [];
    for (const n of cluster.nodes) {
      const others = cluster.nodes.filter((x) => x !== n);
      const otherQueues = all.filter((q) => !homedOn.get(n)!.includes(q));
      const livePublishers = others.map((x) => current.get(x)!);
      const confirmsAfter = (p: Publisher, at: number): number => otherQueues.reduce((s, q) => s + p.confirmsAfter(q, at), 0);
      const watchFrom = Date.now();
      await eventually(() => livePublishers.every((p) => confirmsAfter(p, watchFrom) >= PHASE_CONFIRMS), 30_000, `load before ${n.name}'s restart`);

      const stoppedAt = Date.now();
      await withTimeout(cluster.kill(n, "SIGTERM"), 30_000, `${n.name} to stop on SIGTERM`);
      const from = n.log.length;
      const restartedAt = Date.now();
      cluster.startNode(n);
      await serving(n, 2, from);
      const firstAfter = (q: string): number | undefined => {
        const times = livePublishers.map((p) => p.firstConfirmAfter(q, restartedAt)).filter((x): x is number => x !== undefined);
        return times.length === 0 ? undefined : Math.min(...times);
      };
      // Confirms of its queues, after its restart, to the publishers on the other nodes: its new process gives them.
      const restartedQueues = homedOn.get(n)!;
      await eventually(() => restartedQueues.every((q) => firstAfter(q) !== undefined), 30_000, `${n.name}'s queues confirming again`);
      const serveAgainMs = Math.max(...restartedQueues.map((q) => firstAfter(q)! - stoppedAt));
      const servedAt = Date.now();
      await eventually(() => livePublishers.every((p) => confirmsAfter(p, servedAt) >= PHASE_CONFIRMS), 30_000, `load after ${n.name}'s restart`);
      const longestGapMs = Math.max(...livePublishers.map((p) => longestGap(p, otherQueues, watchFrom, Date.now())));
      restarts.push({ node: n.name, serveAgainMs, longestGapMs });
      // Its clients died with it: the old publisher settles (its channels are gone), new ones on the restarted node.
      await withTimeout(current.get(n)!.stop(), 10_000, `${n.name}'s old publisher to settle`);
      await clientsOn(n);
    }

    await withTimeout(Promise.all(everyPublisher.map((p) => p.stop())), 30_000, "the publishers' last confirms");
    const expected = new Set(everyPublisher.flatMap((p) => [...p.confirmed]));
    // Every queue consumable at the end, through one node; what is left is drained.
    await consumeAll(await connect(cluster.nodes[0]!), all, tally, 500);
    await eventually(() => tally.missing(expected) === 0, 60_000, "every confirmed message consumed").catch(() => undefined);
    const seen = new Set(tally.counts.keys());
    const f = chaosFigures(t, "10 spread rolling restart (SIGTERM, 3 nodes, 6 queues)", expected, seen, tally.duplicates, Math.max(...restarts.map((r) => r.serveAgainMs)), {
      serveAgainMs_each: restarts.map((r) => r.serveAgainMs).join(" / "),
      longestGapMs_each: restarts.map((r) => r.longestGapMs).join(" / "),
      unconfirmedFound: [...seen].filter((id) => !expected.has(id)).length,
      unflaggedRepeats: tally.unflaggedRepeats,
    });
    assert.equal(f.lost, 0, "no confirmed message lost");
    for (const r of restarts) assert.ok(r.serveAgainMs <= 15_000, `${r.node}'s queues served again within 15 s of its SIGTERM (${r.serveAgainMs} ms)`);
    assert.equal(tally.unflaggedRepeats, 0, "a message delivered twice came without the redelivered flag");
    pass();
  });
});
