// Two "machines" of `coney --workers 2` as spread-cluster nodes on one real etcd (spread-machines.ts):
// a worker killed -9 is restarted on its own store inside its lease, or (machine b's slow restart)
// its store is adopted by a follower meanwhile and taken back; the others never stop confirming and
// every confirmed message is there.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../helpers/wait.js";
import { spreadMachines, type NodeRow } from "./spread-machines.js";

describe("workers as spread-cluster nodes: a worker killed -9, restarted inside its lease or adopted after it", () => {
  const { a, b, nodesOf, allRunning, killOne } = spreadMachines();

  it("a worker killed -9: only its queues pause, the others keep confirming; restarted at once on its own store, every confirmed message is there", async () => {
    const victim = "a-w1@test";
    await killOne(victim, "wk", async (pid, q, publishAgain) => {
      // Its primary restarts it on its own store; every node lists the new process.
      await allRunning(a(), new Map([[victim, String(pid)]]));
      await allRunning(b(), new Map([[victim, String(pid)]]));
      await eventually(publishAgain, 20_000, `${q} to confirm again`);
      const rows = (await nodesOf(b())).find((r) => r.name === victim) as (NodeRow & { adopted_by?: string }) | undefined;
      assert.equal(rows?.adopted_by, undefined, "restarted inside the lease: never adopted");
    });
  });

  it("a worker restarted only after its lease: its store is adopted by a follower meanwhile, then taken back with every confirmed message", async () => {
    const victim = "b-w1@test";
    await killOne(victim, "wa", async (pid, q, publishAgain) => {
      // Adopted once the lease expired: its queue confirms again while the worker is still down.
      await eventually(async () => (await nodesOf(a())).some((r) => r.name === victim && (r as { adopted_by?: string }).adopted_by !== undefined), 20_000, `${victim}'s store adopted`);
      await eventually(publishAgain, 20_000, `${q} to confirm while adopted`);
      // Restarted after the back-off: it follows the adopter, takes its store back, and serves it as itself.
      await allRunning(a(), new Map([[victim, String(pid)]]));
      await allRunning(b(), new Map([[victim, String(pid)]]));
      await eventually(async () => (await nodesOf(a())).some((r) => r.name === victim && r.running && (r as { adopted_by?: string }).adopted_by === undefined), 20_000, `${victim} serving its own store again`);
      await eventually(publishAgain, 20_000, `${q} to confirm after the hand-back`);
    });
  });
});
