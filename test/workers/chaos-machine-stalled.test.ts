// Chaos (issue 42, "Faults": a node cut under load) for workers as spread nodes: two machines
// (`coney --workers 2 --cluster-mode spread` as `a@ma` and `b@mb`, machines-fixture.ts) on one real
// etcd, four durable queues balanced one per worker, a publisher with confirms and a consumer on
// machine b for every queue. Machine a's whole process tree is stalled (SIGSTOP: alive, its sockets
// open and silent, as behind a cut network) for 1.5 s, less than its lease, then resumed.
// Asserted: machine b's queues never stop confirming (longest gap between their confirms under 1 s):
// its writers stop waiting for a's silent copies after the ack bound (docs/CLUSTERING.md, "Falling
// behind"), and a machine whose nodes were all demoted is not live for the machine rule ("Copies on
// other machines"), so they confirm on b's own copies meanwhile — before, a stalled machine still
// counted as live and held every confirm until it answered again or its connections were given up
// (5 s). Back, every store's copies are on the other machine again, a's queues confirm again, and
// every confirmed message is consumed (0 lost). Every step waits for an event; the stall's length
// is the fault itself.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, withTimeout } from "../helpers/wait.js";
import { chaosFigures } from "../cluster/chaos-report.js";
import { consumeAll, longestGap } from "../cluster/chaos-load.js";
import { twoMachines, copiesOnOtherMachines, loadOnB } from "./machines-fixture.js";

const WINDOW = 4;
/** Confirms the publisher must see on machine b's queues in each phase (before, after). */
const PHASE_CONFIRMS = 200;
/** How long machine a stays stalled: well past the ack bound (400 ms), well inside the lease (3 s). */
const STALL_MS = 1500;

describe("chaos: a machine of workers as spread nodes stalled under load", { timeout: 110_000 }, () => {
  const machines = twoMachines();

  it("the other machine's queues never stop confirming, and every store has its copies on both machines again after", async (t) => {
    const { all, onA, onB, tally, pub, confirmsAfter } = await loadOnB(machines, "ms", WINDOW);
    const copiesOnBoth = (): Promise<boolean> => copiesOnOtherMachines(machines, all);
    const watchFrom = Date.now();
    await eventually(() => confirmsAfter(onB, watchFrom) >= PHASE_CONFIRMS, 30_000, "load before the stall");

    const stalledAt = Date.now();
    const pids = await machines.stallMachine("a");
    await new Promise((r) => setTimeout(r, Math.max(0, STALL_MS - (Date.now() - stalledAt))));
    const confirmedDuringStall = confirmsAfter(onB, stalledAt);
    machines.resumeMachine(pids);
    const resumedAt = Date.now();
    // Back: a's queues confirm again, and b's stores list a's copies in sync again.
    await eventually(() => onA.every((q) => pub.firstConfirmAfter(q, resumedAt) !== undefined), 30_000, "machine a's queues confirming again");
    const backMs = Math.max(...onA.map((q) => pub.firstConfirmAfter(q, resumedAt)! - resumedAt));
    await eventually(copiesOnBoth, 20_000, "every store's copies on both machines again");
    const settledAt = Date.now();
    await eventually(() => confirmsAfter(onB, settledAt) >= PHASE_CONFIRMS, 30_000, "load after the stall");
    const watchTo = Date.now();
    await withTimeout(pub.stop(), 30_000, "the publisher's last confirms");
    const gapMs = longestGap(pub, onB, watchFrom, watchTo);
    const perQueueGapMs = Math.max(...onB.map((q) => longestGap(pub, [q], watchFrom, watchTo)));

    const expected = new Set(pub.confirmed);
    await consumeAll(await machines.connect("b"), all, tally, 500);
    await eventually(() => tally.missing(expected) === 0, 60_000, "every confirmed message consumed").catch(() => undefined);
    const f = chaosFigures(t, "16 machine of workers as spread nodes stalled 1.5 s (2 machines x 2 workers, 4 queues)", expected, new Set(tally.counts.keys()), tally.duplicates, backMs, {
      longestGapMs: gapMs,
      longestGapPerQueueMs: perQueueGapMs,
      confirmedOnBDuringStall: confirmedDuringStall,
      stalledMs: resumedAt - stalledAt,
      nacked: pub.nacked,
    });
    assert.equal(f.lost, 0, "no confirmed message lost");
    assert.ok(confirmedDuringStall > 0, "machine b's queues confirmed while machine a was stalled");
    assert.ok(gapMs < 1000, `machine b's queues confirmed with no gap over 1 s (longest ${gapMs} ms)`);
    assert.equal(tally.unflaggedRepeats, 0, "a message delivered twice came without the redelivered flag");
  });
});
