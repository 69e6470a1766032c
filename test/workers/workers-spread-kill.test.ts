// Two "machines" of `coney --workers 2` as spread-cluster nodes on one real etcd (machines-fixture.ts,
// RESTART_OR_ADOPT): a worker killed -9 is restarted on its own store inside its lease, or (machine
// b's slow restart) its store is adopted by a follower meanwhile and taken back; the others never
// stop confirming and every confirmed message is there. Apart from workers-spread.test.ts so that
// each file stays well inside the runner's 120 s per file on a loaded machine (one file of all five
// cases ran into it: 3 of 15 runs beside two CPU hogs and two spread-cluster loops).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ConfirmChannel } from "amqplib";
import { alive } from "./workers-harness.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";
import { MACHINES, RESTART_OR_ADOPT, machineOfNode, twoMachines } from "./machines-fixture.js";

/** Confirmed publishes per queue before the kill, and per other queue while the victim is away. */
const ROUNDS = 10;

describe("workers as spread-cluster nodes: a worker killed -9, restarted inside its lease or adopted after it", () => {
  const machines = twoMachines(RESTART_OR_ADOPT);
  /** Every node running again in both machines' /api/nodes, the victim with a process other than `pid`. */
  const bothRunning = (victim: string, pid: number): Promise<unknown> => Promise.all(MACHINES.map((m) => machines.allRunning(m, { unlike: new Map([[victim, String(pid)]]) })));

  /**
   * Queues one per worker; `victim` killed -9 under confirms to the others; every confirmed message
   * of every queue there after `back` (its restart, or its store adopted then handed back).
   */
  const killOne = async (victim: string, prefix: string, back: (pid: number, victimQueue: string, publishAgain: () => Promise<boolean>) => Promise<void>): Promise<void> => {
    await Promise.all(MACHINES.map((m) => machines.allRunning(m)));
    const homes = await machines.declare("a", [0, 1, 2, 3].map((i) => `${prefix}-${i}`));
    const queues = [...homes.keys()];
    const victimQueues = queues.filter((q) => homes.get(q) === victim);
    const others = queues.filter((q) => homes.get(q) !== victim);
    assert.ok(victimQueues.length === 1 && others.length === 3, `one queue on each worker: ${queues.map((q) => `${q}=${homes.get(q)}`).join(", ")}`);
    const sent = new Map<string, string[]>(queues.map((q) => [q, []]));
    const publish = async (c: ConfirmChannel, q: string, tag: string): Promise<boolean> => {
      const body = `${q}-${tag}`;
      const ok = await new Promise<boolean>((resolve) => c.sendToQueue(q, Buffer.from(body), { persistent: true }, (err) => resolve(err === null || err === undefined)));
      if (ok) sent.get(q)!.push(body);
      return ok;
    };
    // The publisher on the other machine: a connection to the victim's machine may have landed on the victim.
    const other = machineOfNode(victim) === "a" ? "b" : "a";
    const pub = await (await machines.connect(other)).createConfirmChannel();
    pub.on("error", () => {});
    for (let i = 0; i < ROUNDS; i++) for (const q of queues) assert.ok(await publish(pub, q, `before-${i}`), `${q} confirms before the kill`);

    const pid = Number((await machines.nodePids("a")).get(victim));
    process.kill(pid, "SIGKILL");
    await eventually(() => !alive(pid), 5000, "the worker to die");
    // While it is away (and after): every other worker's queue confirms, each publish on its own.
    for (let i = 0; i < ROUNDS; i++) for (const q of others) assert.ok(await withTimeout(publish(pub, q, `during-${i}`), 5000, `a confirm from ${q}`), `${q} confirms with ${victim} dead`);
    let n = 0;
    const publishAgain = async (): Promise<boolean> => {
      const c = await (await machines.connect(other)).createConfirmChannel();
      c.on("error", () => {});
      return withTimeout(publish(c, victimQueues[0]!, `again-${n++}`), 5000, "a confirm").catch(() => false);
    };
    await back(pid, victimQueues[0]!, publishAgain);
    const sub = await (await machines.connect("b")).createChannel();
    for (const q of queues) {
      const want = sent.get(q)!;
      const got = collector<string>(want.length);
      await sub.consume(q, (m) => m && got.push(m.content.toString()), { noAck: true });
      assert.deepEqual(await withTimeout(got.done, 20_000, `every confirmed message of ${q}`), want);
    }
    await sub.close();
  };

  it("a worker killed -9: only its queues pause, the others keep confirming; restarted at once on its own store, every confirmed message is there", async () => {
    const victim = "a-w1@test";
    await killOne(victim, "wk", async (pid, q, publishAgain) => {
      // Its primary restarts it on its own store; every node lists the new process.
      await bothRunning(victim, pid);
      await eventually(publishAgain, 20_000, `${q} to confirm again`);
      const row = (await machines.nodeRows("b")).find((r) => r.name === victim);
      assert.equal(row?.adopted_by, undefined, "restarted inside the lease: never adopted");
    });
  });

  it("a worker restarted only after its lease: its store is adopted by a follower meanwhile, then taken back with every confirmed message", async () => {
    const victim = "b-w1@test";
    await killOne(victim, "wa", async (pid, q, publishAgain) => {
      // Adopted once the lease expired: its queue confirms again while the worker is still down.
      await eventually(async () => (await machines.nodeRows("a")).some((r) => r.name === victim && r.adopted_by !== undefined), 20_000, `${victim}'s store adopted`);
      await eventually(publishAgain, 20_000, `${q} to confirm while adopted`);
      // Restarted after the back-off: it follows the adopter, takes its store back, and serves it as itself.
      await bothRunning(victim, pid);
      await eventually(async () => (await machines.nodeRows("a")).some((r) => r.name === victim && r.running && r.adopted_by === undefined), 20_000, `${victim} serving its own store again`);
      await eventually(publishAgain, 20_000, `${q} to confirm after the hand-back`);
    });
  });
});
