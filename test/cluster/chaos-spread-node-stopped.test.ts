// Chaos case 14 (issue 42, "Faults": a node cut under load; docs/CLUSTERING.md "Falling behind"):
// a spread cluster of three real nodes on a real etcd, two durable queues homed on each of two
// nodes, a publisher with confirms and a consumer on each of those two. The third node follows
// both stores and is listed in their in-sync sets; it is SIGSTOPped under the load — alive, its
// sockets open and silent, as a node behind a cut network is (nothing is refused, no RST comes).
// Asserted: the two stores' writers stop waiting for it within --replica-ack-timeout and take it
// out of their in-sync sets in etcd, so their queues never stop confirming (the longest gap between confirms, per publisher,
// from before the stop to after it is back in sync, under 1 s); once SIGCONTed it catches up and
// both stores list it in sync again; then the two other nodes are killed -9 together and it alone
// adopts both stores from its copies — every confirmed message is consumed through it (0 lost),
// a message delivered twice flagged `redelivered`. Every step waits for an event (a confirm
// count, a log line, an etcd key), never a timer; the stop lasts at least STOP_MS.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, withTimeout } from "../helpers/wait.js";
import type { NodeInfo, TestCluster } from "./cluster-fixture.js";
import { chaosFigures } from "./chaos-report.js";
import { Publisher, Tally, consumeAll, longestGap } from "./chaos-load.js";
import { AUTH, adoptionTime, declareHomed, spreadSuite, startSpread } from "./spread-fixture.js";

const WINDOW = 4;
const QUEUES_PER_NODE = 2;
/** Confirms each publisher must see in each phase (before, while stopped, after). */
const PHASE_CONFIRMS = 100;
/** The stop lasts at least this long: longer than the 1 s bound, so a writer that waited for the stopped node would fail it. */
const STOP_MS = 1500;
/**
 * ... and at most this long (the wait fails past it): well inside the 8 s lease (renewed every
 * third of it), so the stopped node keeps its own store and this case tests only the others' writers.
 */
const STOP_MAX_MS = 4000;
const LEASE_S = 8;
const DEMOTED = '"msg":"cluster: follower too slow to acknowledge; confirms no longer wait for it"';
const IN_SYNC = '"msg":"cluster: in-sync set"';

/** The nodes listed in sync for `store`'s writer, as etcd holds them. */
async function inSyncOf(cluster: TestCluster, store: string): Promise<string[]> {
  const v = await cluster.etcdKey(`spread/stores/${store}/insync`);
  return v === null ? [] : (JSON.parse(v) as { nodes: string[] }).nodes;
}

/** Lines of `n`'s log since offset `from` that contain `msg` and name `follower`. */
function linesNaming(n: NodeInfo, from: number, msg: string, follower: string): number[] {
  const out: number[] = [];
  n.log.slice(from).split("\n").forEach((l, i) => {
    if (l.includes(msg) && l.includes(`"${follower}"`)) out.push(i);
  });
  return out;
}

/** Whether any of `writers`' stores lists `follower` in sync in etcd. */
async function listedBy(cluster: TestCluster, writers: readonly NodeInfo[], follower: string): Promise<boolean> {
  return (await Promise.all(writers.map((n) => inSyncOf(cluster, n.name)))).some((s) => s.includes(follower));
}

/** Whether every one of `writers`' stores lists `follower` in sync in etcd. */
async function listedByAll(cluster: TestCluster, writers: readonly NodeInfo[], follower: string): Promise<boolean> {
  return (await Promise.all(writers.map((n) => inSyncOf(cluster, n.name)))).every((s) => s.includes(follower));
}

/**
 * `n`'s writer lists `follower` in sync and will not take it out again: its last in-sync set (since
 * `from`) names it and came after its last demotion of it (with no confirm waiting, none can follow).
 */
function settledInSync(n: NodeInfo, from: number, follower: string): boolean {
  const lines = n.log.slice(from).split("\n");
  let lastSet = -1;
  lines.forEach((l, i) => {
    if (l.includes(IN_SYNC)) lastSet = i;
  });
  const lastDemoted = linesNaming(n, from, DEMOTED, follower).at(-1) ?? -1;
  return lastSet >= 0 && lines[lastSet]!.includes(`"${follower}"`) && lastSet > lastDemoted;
}

describe("chaos: a spread cluster node stopped (SIGSTOP) under load", { timeout: 110_000 }, () => {
  const { cluster, connect, pass } = spreadSuite(3, LEASE_S);

  it("the other nodes' queues keep confirming, it rejoins their in-sync sets, and alone it holds every confirmed message", async (t) => {
    await startSpread(cluster);
    const { homedOn } = await declareHomed(cluster, connect, "chaos-stop", QUEUES_PER_NODE);
    // Not the definitions leader: this case is about the stores' writers, not the definitions' election.
    const listed = (await (await fetch(`http://127.0.0.1:${cluster.nodes[0]!.httpPort}/api/nodes`, { headers: AUTH })).json()) as Array<{ name: string; defs_leader?: boolean }>;
    const victim = [...cluster.nodes].reverse().find((n) => !listed.find((e) => e.name === n.name)?.defs_leader)!;
    const others = cluster.nodes.filter((n) => n !== victim);
    const queues = others.flatMap((n) => homedOn.get(n)!);
    // The victim is in sync with both writers before the stop: their confirms wait for it.
    await eventually(() => listedByAll(cluster, others, victim.name), 30_000, "both stores listing the victim in sync");

    const tally = new Tally();
    for (const n of others) await consumeAll(await connect(n), queues, tally);
    const publishers: Publisher[] = [];
    for (const n of others) publishers.push(new Publisher(n.name, await connect(n), WINDOW));
    for (const p of publishers) await p.start(queues);
    const confirmsAfter = (p: Publisher, at: number): number => queues.reduce((s, q) => s + p.confirmsAfter(q, at), 0);
    await eventually(() => publishers.every((p) => queues.every((q) => p.confirmTimes.get(q)!.length >= 20)), 30_000, "every queue confirming from both publishers");
    const watchFrom = Date.now();
    await eventually(() => publishers.every((p) => confirmsAfter(p, watchFrom) >= PHASE_CONFIRMS), 30_000, "load before the stop");

    const from = others.map((n) => n.log.length);
    const stoppedAt = Date.now();
    cluster.signal(victim.proc, "SIGSTOP");
    let stoppedMs: number;
    try {
      // Out of both in-sync sets in etcd (whether a writer demoted it now or a moment before the stop
      // on this loaded machine), and both stores confirming without it.
      await eventually(
        async () => Date.now() - stoppedAt >= STOP_MS && publishers.every((p) => confirmsAfter(p, stoppedAt) >= PHASE_CONFIRMS) && !(await listedBy(cluster, others, victim.name)),
        STOP_MAX_MS,
        "both stores to confirm without the stopped node, out of their in-sync sets",
      );
    } finally {
      cluster.signal(victim.proc, "SIGCONT");
      stoppedMs = Date.now() - stoppedAt;
    }
    const resumedAt = Date.now();
    // Back, it catches up and both writers list it in sync again, under the same load.
    await eventually(() => listedByAll(cluster, others, victim.name), 30_000, "both writers listing it in sync again");
    const rejoinedMs = Date.now() - resumedAt;
    await eventually(() => publishers.every((p) => confirmsAfter(p, resumedAt + rejoinedMs) >= PHASE_CONFIRMS), 30_000, "load after it rejoined");
    const watchTo = Date.now();
    await withTimeout(Promise.all(publishers.map((p) => p.stop())), 30_000, "the publishers' last confirms");
    const gapMs = Math.max(...publishers.map((p) => longestGap(p, queues, watchFrom, watchTo)));
    const perQueueGapMs = Math.max(...publishers.flatMap((p) => queues.map((q) => longestGap(p, [q], watchFrom, watchTo))));
    // When each writer stopped waiting for it, and when etcd had it out of the in-sync set, after the stop.
    const firstAfter = (n: NodeInfo, msg: string): number => Math.min(...cluster.logTimes(n, msg).filter((x) => x >= stoppedAt - 5));
    const demotedAfterMs = Math.max(...others.map((n) => firstAfter(n, "cluster: follower too slow to acknowledge; confirms no longer wait for it") - stoppedAt));
    const outOfSetAfterMs = Math.max(...others.map((n) => firstAfter(n, "cluster: in-sync set") - stoppedAt));
    const dropped = others.reduce((s, n, i) => s + linesNaming(n, from[i]!, '"msg":"cluster: follower dropped"', victim.name).length, 0);

    // Quiet now (no confirm waits, so no writer demotes it again): both list it, in their logs and in etcd.
    await eventually(() => others.every((n, i) => settledInSync(n, from[i]!, victim.name)), 30_000, "both writers settled with it in sync");
    await eventually(() => listedByAll(cluster, others, victim.name), 10_000, "etcd listing it in sync for both stores");

    // Both other nodes die at once: only the once-stopped node's copies remain, and it adopts both stores.
    const killedAt = Date.now();
    await Promise.all(others.map((n) => cluster.kill(n)));
    await eventually(() => others.every((n) => adoptionTime([victim], n.name, killedAt - 1000) !== undefined), 60_000, "the once-stopped node adopting both stores");
    const expected = new Set(publishers.flatMap((p) => [...p.confirmed]));
    // The adopted stores' queues are reachable through it a moment after it logs that it serves them.
    const drain = await connect(victim);
    await eventually(() => consumeAll(drain, queues, tally, 500).then(() => true, () => false), 30_000, "consuming every queue through the once-stopped node");
    await eventually(() => tally.missing(expected) === 0, 60_000, "every confirmed message consumed").catch(() => undefined);
    const f = chaosFigures(t, "14 spread node SIGSTOP (3 nodes, 4 queues on the others)", expected, new Set(tally.counts.keys()), tally.duplicates, null, {
      longestGapMs: gapMs,
      longestGapPerQueueMs: perQueueGapMs,
      stoppedMs,
      demotions: others.reduce((sum, n, i) => sum + linesNaming(n, from[i]!, DEMOTED, victim.name).length, 0),
      demotedAfterMs,
      outOfSetAfterMs,
      rejoinedAfterMs: rejoinedMs,
      droppedConnections: dropped,
      unflaggedRepeats: tally.unflaggedRepeats,
    });
    assert.equal(f.lost, 0, "no confirmed message lost");
    assert.ok(stoppedMs >= STOP_MS, `the node was stopped ${stoppedMs} ms`);
    assert.ok(gapMs < 1000, `the other nodes' queues confirmed with no gap over 1 s while one node was stopped (longest ${gapMs} ms)`);
    assert.equal(tally.unflaggedRepeats, 0, "a message delivered twice came without the redelivered flag");
    pass();
  });
});
