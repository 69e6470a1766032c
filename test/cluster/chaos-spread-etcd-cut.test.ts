// Chaos case 11 (issue 42, "Faults": "a node cut from etcd gives up its groups within the lease"):
// a spread cluster (`--cluster-mode spread`, stage 2: every node's store replicated to the
// others) of three real nodes on a real etcd, lease 3 s, two durable queues homed on each node,
// a publisher with confirms on every node to every queue and a consumer on every node of every
// queue — case 9's load. One node reaches etcd through a TCP proxy the test controls; the proxy is
// cut under that load (etcd and the node links stay up: a partition between the node and etcd).
// Asserted: the cut node sends no confirm from the moment its lease has certainly expired (the cut
// + the TTL) on, to its own clients or through the other nodes, until a survivor serves its store
// adopted; its clients are disconnected; the other nodes' queues never stop confirming (the
// longest gap between confirms of their queues, per surviving publisher, from before the cut until
// after the node serves again, under 1 s); the cut node's queues confirm again through a survivor
// within 15 s of the cut; the proxy restored, the node takes its store back and its queues confirm
// through it again; every confirmed message is consumed (0 lost), a message delivered twice always
// flagged `redelivered`. Every step waits for an event (a confirm count, a log line, a close),
// never a timer.
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { ChannelModel } from "amqplib";
import { eventually, withTimeout } from "../helpers/wait.js";
import type { NodeInfo } from "./cluster-fixture.js";
import { chaosFigures } from "./chaos-report.js";
import { Publisher, Tally, consumeAll, longestGap } from "./chaos-load.js";
import { adoptionTime, declareHomed, spreadCluster } from "./spread-fixture.js";

const TTL_S = 3;
/** Unconfirmed publishes each (publisher, queue) keeps in flight: a steady load, not a flood. */
const WINDOW = 4;
const QUEUES_PER_NODE = 2;
/** Confirms each surviving publisher must see on the survivors' queues in each phase. */
const PHASE_CONFIRMS = 300;
/** The adopter logs that it serves a store just after it can: a confirm through it may come this much before the line. */
const ADOPTION_SLACK_MS = 500;
/** The cut node, behind the proxy. */
const CUT = 1;

describe("chaos: a spread cluster node cut from etcd under load", { timeout: 110_000 }, () => {
  const sc = spreadCluster({ leaseTtl: TTL_S, protocols: false, viaProxy: [CUT] });
  const { cluster, proxy } = sc;
  const connect = (n: NodeInfo): Promise<ChannelModel> => sc.connect(cluster.nodes.indexOf(n));

  sc.it("gives up its queues within the lease, the others never stop confirming, its queues are adopted and taken back, no confirmed message lost", async (t) => {
    const { all, homedOn } = await declareHomed(cluster, connect, "chaos-cut", QUEUES_PER_NODE);
    const victim = sc.node(CUT);
    const survivors = cluster.nodes.filter((n) => n !== victim);
    const victimQueues = homedOn.get(victim)!;
    const survivorQueues = all.filter((q) => !victimQueues.includes(q));

    const tally = new Tally();
    const victimConns: ChannelModel[] = [];
    for (const n of cluster.nodes) {
      const c = await connect(n);
      if (n === victim) victimConns.push(c);
      await consumeAll(c, all, tally);
    }
    const publishers = new Map<NodeInfo, Publisher>();
    for (const n of cluster.nodes) {
      const c = await connect(n);
      if (n === victim) victimConns.push(c);
      publishers.set(n, new Publisher(n.name, c, WINDOW));
    }
    for (const p of publishers.values()) await p.start(all);
    const surviving = survivors.map((n) => publishers.get(n)!);
    const victimPublisher = publishers.get(victim)!;
    const survivorConfirmsAfter = (p: Publisher, at: number): number => survivorQueues.reduce((s, q) => s + p.confirmsAfter(q, at), 0);
    const victimClosed = Promise.all(victimConns.map((c) => new Promise<number>((resolve) => c.once("close", () => resolve(Date.now())))));

    await eventually(() => [...publishers.values()].every((p) => all.every((q) => p.confirmTimes.get(q)!.length >= 20)), 30_000, "every queue confirming from every node");
    const watchFrom = Date.now();
    await eventually(() => surviving.every((p) => survivorConfirmsAfter(p, watchFrom) >= PHASE_CONFIRMS), 30_000, "load before the cut");

    const cutAt = Date.now();
    proxy.cutOff();
    const leaseGone = cutAt + TTL_S * 1000;
    // Its clients: disconnected when it fences (at the TTL on its own clock).
    const closedAt = Math.max(...(await withTimeout(victimClosed, 15_000, "the cut node to close its clients' connections")));
    // Served again: each of its queues confirmed through a survivor once a survivor serves its store adopted.
    const firstAfter = (q: string, at: number): number | undefined => {
      const times = surviving.map((p) => p.firstConfirmAfter(q, at)).filter((x): x is number => x !== undefined);
      return times.length === 0 ? undefined : Math.min(...times);
    };
    let adoptedAt = 0;
    await eventually(() => {
      adoptedAt = adoptionTime(survivors, victim.name, cutAt) ?? 0;
      return adoptedAt > 0 && victimQueues.every((q) => firstAfter(q, adoptedAt - ADOPTION_SLACK_MS) !== undefined);
    }, 20_000, "the cut node's store adopted and its queues confirming through a survivor");
    const serveAgainMs = Math.max(...victimQueues.map((q) => firstAfter(q, adoptedAt - ADOPTION_SLACK_MS)! - cutAt));
    // Nothing confirmed by the cut node once its lease certainly expired: not to its own clients (any store), and
    // not to its queues through the others until the adopter serves them.
    const confirmedToOwnClientsAfterLease = all.reduce((s, q) => s + victimPublisher.confirmsAfter(q, leaseGone), 0);
    const confirmedThroughOthersAfterLease = surviving.reduce((s, p) => s + victimQueues.reduce((x, q) => x + p.confirmsAfter(q, leaseGone) - p.confirmsAfter(q, Math.max(leaseGone, adoptedAt - ADOPTION_SLACK_MS)), 0), 0);
    const lastVictimConfirmBeforeAdoption = Math.max(cutAt, ...surviving.flatMap((p) => victimQueues.flatMap((q) => (p.confirmTimes.get(q) ?? []).filter((x) => x < adoptedAt - ADOPTION_SLACK_MS))));

    // etcd reachable again: the node boots through its claim, follows its adopter and takes its store back.
    const from = victim.log.length;
    const restoredAt = Date.now();
    proxy.restore();
    await eventually(() => victim.log.slice(from).includes("spread cluster: store taken back"), 30_000, "the cut node to take its store back");
    // Booted again in its process (no "Coney started": that is the process's start), linked to both others.
    await eventually(() => {
      const log = victim.log.slice(from);
      return log.includes('"msg":"spread cluster: node serving"') && log.split("spread cluster: link to a node up").length - 1 >= 2;
    }, 30_000, "the cut node serving again with its links");
    const takenBackAt = Date.now();
    await eventually(() => victimQueues.every((q) => firstAfter(q, takenBackAt) !== undefined), 20_000, "its queues confirming through it again");
    const backMs = Math.max(...victimQueues.map((q) => firstAfter(q, takenBackAt)!)) - restoredAt;
    // A new client on it, as an operator's would reconnect: it publishes to every queue and consumes them.
    const again = new Publisher(`${victim.name}-again`, await connect(victim), WINDOW);
    await again.start(all);
    const everyPublisher = [...publishers.values(), again];
    await consumeAll(await connect(victim), all, tally);
    const servedAt = Date.now();
    await eventually(() => surviving.every((p) => survivorConfirmsAfter(p, servedAt) >= PHASE_CONFIRMS) && all.every((q) => again.confirmsAfter(q, servedAt) >= 5), 30_000, "load after the node serves again");
    const watchTo = Date.now();
    await withTimeout(Promise.all(everyPublisher.map((p) => p.stop())), 30_000, "the publishers' last confirms");
    const gapMs = Math.max(...surviving.map((p) => longestGap(p, survivorQueues, watchFrom, watchTo)));
    const perQueueGapMs = Math.max(...surviving.flatMap((p) => survivorQueues.map((q) => longestGap(p, [q], watchFrom, watchTo))));

    // Every confirmed message is consumed: a fresh consumer on each queue (through a survivor) takes what is left.
    const expected = new Set(everyPublisher.flatMap((p) => [...p.confirmed]));
    await consumeAll(await connect(survivors[0]!), all, tally, 500);
    await eventually(() => tally.missing(expected) === 0, 60_000, "every confirmed message consumed").catch(() => undefined);
    const seen = new Set(tally.counts.keys());
    const f = chaosFigures(t, "11 spread node cut from etcd (3 nodes, 6 queues, lease 3 s)", expected, seen, tally.duplicates, serveAgainMs, {
      longestGapMs: gapMs,
      longestGapPerQueueMs: perQueueGapMs,
      clientsClosedAfterMs: closedAt - cutAt,
      lastConfirmOfItsQueuesBeforeAdoptionMs: lastVictimConfirmBeforeAdoption - cutAt,
      adoptedAfterMs: adoptedAt - cutAt,
      confirmedByItAfterLease: confirmedToOwnClientsAfterLease + confirmedThroughOthersAfterLease,
      restoreToItsQueuesConfirmingMs: backMs,
      unconfirmedFound: [...seen].filter((id) => !expected.has(id)).length,
      unflaggedRepeats: tally.unflaggedRepeats,
    });
    assert.equal(f.lost, 0, "no confirmed message lost");
    assert.equal(confirmedToOwnClientsAfterLease, 0, "the cut node confirmed nothing to its own clients after its lease certainly expired");
    assert.equal(confirmedThroughOthersAfterLease, 0, "the cut node's queues confirmed nothing through the others after its lease expired, until adopted");
    assert.ok(closedAt - cutAt < TTL_S * 1000 + 2500, `its clients were disconnected within the lease (${closedAt - cutAt} ms)`);
    assert.ok(gapMs < 1000, `the other nodes' queues confirmed with no gap over 1 s (longest ${gapMs} ms)`);
    assert.ok(serveAgainMs <= 15_000, `the cut node's queues served again through a survivor within 15 s of the cut (${serveAgainMs} ms)`);
    assert.equal(tally.unflaggedRepeats, 0, "a message delivered twice came without the redelivered flag");
  });
});
