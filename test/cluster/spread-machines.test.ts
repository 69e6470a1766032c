// The machine rule of a spread cluster's stores (src/cluster/spread-machines.ts): a node's machine
// from its name, the default min-in-sync over machines, when a writer may confirm given where its
// in-sync copies are and which machines are live, and the placement /api/queues shows.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { copiesPlaced, defaultMinInSync, machineOf, machinesWanted, replicaPlacement } from "../../src/cluster/spread-machines.js";
import { SpreadKeys } from "../../src/cluster/spread-keys.js";
import { SpreadStoreView } from "../../src/cluster/spread-store-view.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReplicationLeader } from "../../src/cluster/replication-leader.js";
import { createLogger } from "../../src/logging/logger.js";
import { eventually } from "../helpers/wait.js";

const linked = (...names: string[]): Map<string, { demoted: boolean }> => new Map(names.map((n) => [n, { demoted: false }]));

describe("spread cluster: copies on other machines", () => {
  it("takes a node's machine from the host part of its name; a name without one is a machine of its own", () => {
    assert.equal(machineOf("coney-w1@db1"), "db1");
    assert.equal(machineOf("a@b@db2"), "db2", "the last @");
    assert.equal(machineOf("node0"), "node0");
  });

  it("wants a majority of the known machines counting the writer's, and defaults min-in-sync to it (nodes on one machine: a majority of nodes)", () => {
    assert.equal(machinesWanted([]), 0);
    assert.equal(machinesWanted(["a-w0@h", "a-w1@h", "b-w0@h"]), 0, "one machine");
    assert.equal(machinesWanted(["a-w0@ma", "a-w1@ma", "b-w0@mb", "b-w1@mb"]), 1, "two machines");
    assert.equal(machinesWanted(["x@1", "y@2", "z@3", "w@4", "v@5"]), 2, "five machines");
    assert.equal(defaultMinInSync(4, 0), 2, "four workers of one machine: as before");
    assert.equal(defaultMinInSync(4, 1), 1, "two machines of two workers: one copy, on the other machine while it is live");
    assert.equal(defaultMinInSync(0, 0), 0, "alone");
    const keys = new SpreadKeys("c1");
    const view = new SpreadStoreView(keys);
    for (const n of ["a-w0@ma", "a-w1@ma", "b-w0@mb", "b-w1@mb"]) view.take(keys.known(n), JSON.stringify({ name: n }), 1);
    assert.equal(view.machinesWanted(), 1);
    assert.equal(view.minInSync(null), 1);
    assert.equal(view.minInSync(3), 3, "the setting wins");
    view.take(keys.known("b-w0@mb"), null, 2);
    view.take(keys.known("b-w1@mb"), null, 3);
    assert.equal(view.machinesWanted(), 0, "machine mb forgotten");
    assert.equal(view.minInSync(null), 1, "two nodes of one machine");
  });

  it("confirms only with a copy on another machine while one is live, and falls back to its own machine's copies when none is", () => {
    const inSync = (...n: string[]): Set<string> => new Set(n);
    // Writer a-w0@ma, machine mb live (b-w0 connected).
    assert.equal(copiesPlaced("ma", 1, inSync("a-w1@ma"), linked("a-w1@ma", "b-w0@mb")), false, "its own machine's copy alone while mb is live");
    assert.equal(copiesPlaced("ma", 1, inSync("a-w1@ma", "b-w1@mb"), linked("a-w1@ma", "b-w0@mb", "b-w1@mb")), true);
    assert.equal(copiesPlaced("ma", 1, inSync("a-w1@ma"), linked("a-w1@ma")), true, "no other machine live: its own machine's copies");
    assert.equal(copiesPlaced("ma", 1, inSync(), linked()), true, "the rule places; the count (min-in-sync) is the other check");
    assert.equal(copiesPlaced("ma", 0, inSync("a-w1@ma"), linked("b-w0@mb")), true, "nothing wanted: one machine known");
    // Five machines known, two wanted: as many as are live.
    assert.equal(copiesPlaced("m1", 2, inSync("x@m2"), linked("x@m2", "y@m3")), false);
    assert.equal(copiesPlaced("m1", 2, inSync("x@m2", "x2@m2"), linked("x@m2", "x2@m2", "y@m3")), false, "two copies on one other machine count once");
    assert.equal(copiesPlaced("m1", 2, inSync("x@m2", "y@m3"), linked("x@m2", "y@m3", "z@m4")), true);
    assert.equal(copiesPlaced("m1", 2, inSync("x@m2"), linked("x@m2")), true, "only one other machine live");
    // A machine whose every connected node was demoted (silent past the ack bound) is not live: as if disconnected.
    const stalled = new Map([["a-w1@ma", { demoted: false }], ["b-w0@mb", { demoted: true }], ["b-w1@mb", { demoted: true }]]);
    assert.equal(copiesPlaced("ma", 1, inSync("a-w1@ma"), stalled), true, "mb stalled: its own machine's copies");
    stalled.set("b-w1@mb", { demoted: false });
    assert.equal(copiesPlaced("ma", 1, inSync("a-w1@ma"), stalled), false, "one node of mb answering again: mb is live");
  });

  it("says where a store's in-sync copies are", () => {
    assert.equal(replicaPlacement("a-w0@ma", ["a-w0@ma", "a-w1@ma", "b-w0@mb"]), "other-machines");
    assert.equal(replicaPlacement("a-w0@ma", ["a-w0@ma", "a-w1@ma"]), "same-machine");
    assert.equal(replicaPlacement("a-w0@ma", ["a-w0@ma"]), "none");
    assert.equal(replicaPlacement("b-w0@mb", ["b-w0@mb", "b-w1@mb"]), "same-machine", "an adopter on mb with mb's copies");
  });

  it("is asked by a store's replication leader before each confirm: a batch waits while the copies are misplaced, and goes once they are placed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-machines-"));
    let placed = false;
    const asked: Array<{ inSync: number; connected: number }> = [];
    const hooks = {
      writeInSync: async () => true,
      minInSync: () => 0,
      placed: (inSync: ReadonlySet<string>, connected: ReadonlyMap<string, unknown>) => {
        asked.push({ inSync: inSync.size, connected: connected.size });
        return placed;
      },
      leaseValid: () => true,
      leaseExpired: () => false,
      deposed: () => undefined,
      ackTimeoutMs: 400,
    };
    const leader = new ReplicationLeader(dir, Buffer.alloc(32, 1), hooks, createLogger("silent"));
    try {
      let confirmed: boolean | null = null;
      void leader.replicated(1).then((ok) => (confirmed = ok));
      // The leader's tick (every 100 ms) asks again: the batch stays held while the answer is no.
      await eventually(() => asked.length >= 3, 2000, "the leader to ask the rule on its ticks");
      assert.equal(confirmed, null, "held while the copies are misplaced");
      assert.deepEqual(asked[0], { inSync: 0, connected: 0 }, "asked with the in-sync set and the connected followers");
      placed = true;
      await eventually(() => confirmed === true, 2000, "the held confirm");
    } finally {
      leader.fence();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
