// Chaos (issue 42, "Faults"): a rolling restart of workers as spread nodes. Two machines (`coney
// --workers 2 --cluster-mode spread` as `a@ma` and `b@mb`, machines-fixture.ts) on one real etcd,
// four durable queues balanced one per worker; on each machine a publisher with confirms to every
// queue and a consumer of every queue. Each machine in turn gets SIGTERM (its primary stops its
// workers; its clients' connections close), is started again on its data dir, and is waited for
// until its four nodes run again and each queue confirms through it; then it gets a new publisher
// and consumer and the next machine goes. Asserted: afterwards every queue confirms through both
// machines, every store's copies are on the other machine again (`replica_placement`), and every
// confirmed message is consumed (0 lost). Printed: per restart, the longest gap between confirms
// of the other machine's queues across it (not asserted: the machine rule makes those confirms
// wait while the returning machine's nodes catch up, docs/CLUSTERING.md "Copies on other machines").
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, withTimeout } from "../helpers/wait.js";
import { chaosFigures } from "../cluster/chaos-report.js";
import { Publisher, Tally, consumeAll, longestGap } from "../cluster/chaos-load.js";
import { MACHINES, twoMachines, machineOfNode, type MachineName } from "./machines-fixture.js";

const WINDOW = 4;
/** Confirms every current publisher must see on every queue before the next step. */
const STEP_CONFIRMS = 20;

describe("chaos: a rolling restart of machines of workers as spread nodes under load", { timeout: 110_000 }, () => {
  const machines = twoMachines();

  it("each machine stopped (SIGTERM) and restarted in turn: no confirmed message lost, every queue reachable through both afterwards", async (t) => {
    await Promise.all([machines.allRunning("a"), machines.allRunning("b")]);
    const homes = await machines.declare("a", [0, 1, 2, 3].map((i) => `mr-${i}`));
    const all = [...homes.keys()];
    const tally = new Tally();
    const everyPublisher: Publisher[] = [];
    const current = new Map<MachineName, Publisher>();
    let generation = 0;
    const clientsOn = async (m: MachineName): Promise<void> => {
      await consumeAll(await machines.connect(m), all, tally);
      const p = new Publisher(`${m}#${generation++}`, await machines.connect(m), WINDOW);
      everyPublisher.push(p);
      current.set(m, p);
      await p.start(all);
    };
    /** Every queue confirmed at least STEP_CONFIRMS times after `at` by each current publisher. */
    const confirming = (at: number, what: string): Promise<void> =>
      eventually(() => [...current.values()].every((p) => all.every((q) => p.confirmsAfter(q, at) >= STEP_CONFIRMS)), 30_000, what);
    for (const m of MACHINES) await clientsOn(m);
    await confirming(0, "every queue confirming through both machines");

    const restarts: Array<{ machine: string; stopMs: number; backMs: number; otherGapMs: number }> = [];
    for (const m of MACHINES) {
      const other = MACHINES.find((x) => x !== m)!;
      const otherQueues = all.filter((q) => machineOfNode(homes.get(q)!) === other);
      const watching = current.get(other)!;
      const stoppedAt = Date.now();
      await machines.stopMachine(m);
      const restartedAt = Date.now();
      await machines.startMachine(m);
      await Promise.all([machines.allRunning(m), machines.allRunning(other)]);
      await clientsOn(m);
      await confirming(restartedAt, `every queue confirming through both machines after ${m}'s restart`);
      const backAt = Date.now();
      restarts.push({ machine: m, stopMs: restartedAt - stoppedAt, backMs: backAt - restartedAt, otherGapMs: otherQueues.length === 0 ? 0 : longestGap(watching, otherQueues, stoppedAt, backAt) });
    }

    // Every store's copies span both machines again.
    await eventually(async () => {
      const list = await machines.queues("b");
      return all.every((q) => list.find((x) => x.name === q)?.replica_placement === "other-machines");
    }, 20_000, "every queue's copies on both machines again");
    await withTimeout(Promise.all(everyPublisher.map((p) => p.stop())), 30_000, "the publishers' last confirms");
    const expected = new Set(everyPublisher.flatMap((p) => [...p.confirmed]));
    await consumeAll(await machines.connect("a"), all, tally, 500);
    await eventually(() => tally.missing(expected) === 0, 60_000, "every confirmed message consumed").catch(() => undefined);
    const perRestart = Object.fromEntries(restarts.map((r) => [`restart_${r.machine}`, `stop ${r.stopMs} ms, back ${r.backMs} ms, other machine's longest gap ${r.otherGapMs} ms`]));
    const f = chaosFigures(t, "13 rolling restart of machines of workers as spread nodes (2 machines x 2 workers, 4 queues)", expected, new Set(tally.counts.keys()), tally.duplicates, null, {
      ...perRestart,
      nacked: everyPublisher.reduce((s, p) => s + p.nacked, 0),
    });
    assert.equal(f.lost, 0, "no confirmed message lost");
    assert.equal(tally.unflaggedRepeats, 0, "a message delivered twice came without the redelivered flag");
  });
});
