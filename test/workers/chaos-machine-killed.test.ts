// Chaos (issue 42, "Faults") for workers as spread nodes: two machines (`coney --workers 2
// --cluster-mode spread` as `a@ma` and `b@mb`, machines-fixture.ts) on one real etcd, four durable
// queues balanced one per worker, a publisher with confirms and a consumer on machine b for every
// queue. Before the fault every queue's copies are on the other machine too (`replica_placement`
// in /api/queues: the machine rule, docs/CLUSTERING.md "Copies on other machines"). Machine a's
// whole process tree is killed -9. Asserted: machine b's queues never stop confirming (longest gap
// between their confirms, from before the kill to well after machine a's queues serve again, under
// 1 s); machine a's queues confirm again through b (its stores adopted from b's copies) within 15 s
// of the kill; b's stores then say they fall back to copies on their own machine; every confirmed
// message is consumed (0 lost). Every step waits for an event, never a timer.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, withTimeout } from "../helpers/wait.js";
import { chaosFigures } from "../cluster/chaos-report.js";
import { consumeAll, longestGap } from "../cluster/chaos-load.js";
import { twoMachines, loadOnB, machineOfNode } from "./machines-fixture.js";

const WINDOW = 4;
/** Confirms the publisher must see on machine b's queues in each phase (before, after). */
const PHASE_CONFIRMS = 200;

describe("chaos: a machine of workers as spread nodes killed -9 under load", { timeout: 110_000 }, () => {
  const machines = twoMachines();

  it("the other machine's queues never stop confirming, the dead machine's serve again from copies on the other machine, no confirmed message lost", async (t) => {
    await Promise.all([machines.allRunning("a"), machines.allRunning("b")]);
    for (const m of ["a", "b"] as const) assert.equal(machines.of(m).lines.find((l) => l.msg === "Coney started")?.["machine"], `m${m}`, `machine ${m}'s start line names its machine`);
    // Under load, each store's in-sync copies include one on the other machine.
    const { all, onA, onB, tally, pub, confirmsAfter } = await loadOnB(machines, "mk", WINDOW);
    const before = await machines.queues("b");
    for (const q of all) {
      const row = before.find((x) => x.name === q)!;
      assert.ok(row.members!.some((n) => machineOfNode(n) !== machineOfNode(row.node!)), `${q} (${row.node}) has a member on the other machine: ${row.members!.join(", ")}`);
    }
    const watchFrom = Date.now();
    await eventually(() => confirmsAfter(onB, watchFrom) >= PHASE_CONFIRMS, 30_000, "load before the kill");

    const killedAt = Date.now();
    await machines.killMachine("a");
    // Machine a's queues serve again (adopted on machine b from its copies).
    await eventually(() => onA.every((q) => pub.firstConfirmAfter(q, killedAt + 1000) !== undefined), 30_000, "machine a's queues confirming again");
    const serveAgainMs = Math.max(...onA.map((q) => pub.firstConfirmAfter(q, killedAt + 1000)! - killedAt));
    const servedAt = Date.now();
    await eventually(() => confirmsAfter(onB, servedAt) >= PHASE_CONFIRMS, 30_000, "load after machine a's queues serve again");
    const watchTo = Date.now();
    await withTimeout(pub.stop(), 30_000, "the publisher's last confirms");
    const gapMs = longestGap(pub, onB, watchFrom, watchTo);
    const perQueueGapMs = Math.max(...onB.map((q) => longestGap(pub, [q], watchFrom, watchTo)));

    // With machine a gone, every store's copies are on machine b alone (the fall-back), and /api/queues says so.
    await eventually(async () => {
      const list = await machines.queues("b");
      return all.every((q) => list.find((x) => x.name === q)?.replica_placement === "same-machine");
    }, 20_000, "every store's copies on machine b alone");
    const afterRows = await machines.queues("b");
    const adoptedOnline = afterRows.filter((x) => onA.includes(x.name)).map((x) => `${x.name}: ${x.online!.join(" ")}`);

    // Every confirmed message is consumed: a fresh consumer on each queue takes what is left.
    const expected = new Set(pub.confirmed);
    await consumeAll(await machines.connect("b"), all, tally, 500);
    await eventually(() => tally.missing(expected) === 0, 60_000, "every confirmed message consumed").catch(() => undefined);
    const f = chaosFigures(t, "12 machine of workers as spread nodes kill -9 (2 machines x 2 workers, 4 queues)", expected, new Set(tally.counts.keys()), tally.duplicates, serveAgainMs, {
      longestGapMs: gapMs,
      longestGapPerQueueMs: perQueueGapMs,
      queuesOnKilledMachine: onA.length,
      nacked: pub.nacked,
      adoptedOnline: adoptedOnline.join("; "),
    });
    assert.equal(f.lost, 0, "no confirmed message lost");
    assert.ok(gapMs < 1000, `machine b's queues confirmed with no gap over 1 s (longest ${gapMs} ms)`);
    assert.ok(serveAgainMs <= 15_000, `machine a's queues served again within 15 s of the kill (${serveAgainMs} ms)`);
    assert.equal(tally.unflaggedRepeats, 0, "a message delivered twice came without the redelivered flag");
  });
});
