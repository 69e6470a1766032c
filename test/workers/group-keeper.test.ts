// The primary's keeper of the group table (src/workers/group-keeper.ts), with in-process worker endpoints
// through the real IPC hub: each table stored before it is sent, and a group moved between live workers
// assigned only after its old leader acknowledged the revoke, or was killed and seen to exit.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../src/logging/logger.js";
import { GroupKeeper } from "../../src/workers/group-keeper.js";
import { groupsOf, initialTable, withoutWorker, type GroupTable } from "../../src/workers/group-table.js";
import { IpcEndpoint } from "../../src/workers/ipc-endpoint.js";
import { IpcHub } from "../../src/workers/ipc-hub.js";
import { loadTable } from "../../src/workers/workers-file.js";
import { eventually } from "../helpers/wait.js";

const quiet = createLogger("silent");

/** Two workers on a hub; `answers[w]` false makes worker w never answer a table. */
function setup(answers: [boolean, boolean]) {
  const hub = new IpcHub();
  const live = new Set([0, 1]);
  const seen: Array<{ w: number; table: GroupTable }> = [];
  const events: string[] = [];
  for (const w of [0, 1]) {
    const e = new IpcEndpoint(`w${w}`, (env) => setImmediate(() => hub.route(env)));
    hub.attach(`w${w}`, (env) => setImmediate(() => e.receive(env)));
    hub.heard(`w${w}`); // listening from the start, as a real worker once it spoke
    e.handle("table", (table) => {
      seen.push({ w, table: table as GroupTable });
      return answers[w] ? { version: (table as GroupTable).version } : new Promise(() => {});
    });
  }
  return { hub, live, seen, events };
}

describe("group keeper", () => {
  it("stores each table, sends it to every live worker, and evens the spread out with a revoke acknowledged before the assign", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-keeper-"));
    try {
      const { hub, live, seen } = setup([true, true]);
      // w1 died earlier: w0 leads every group.
      const initial = withoutWorker(initialTable(4, [0, 1]), 1, [0, 1]);
      const keeper = new GroupKeeper({ initial, dataDir: dir, endpoint: hub.endpoint, ackMs: 1000, logger: quiet, live: () => [...live], kill: async () => assert.fail("nobody is killed") });
      assert.deepEqual(loadTable(dir), initial, "stored at once");
      keeper.workerReady(1);
      await keeper.settled();
      const t = keeper.current;
      assert.deepEqual([groupsOf(t, 0).length, groupsOf(t, 1).length], [2, 2]);
      assert.deepEqual(loadTable(dir), t, "the last table is the stored one");
      const revoke = seen.find((s) => s.w === 0 && s.table.groups.some((g) => g.worker === null));
      assert.ok(revoke, "w0 was sent the revoke");
      await eventually(() => seen.some((s) => s.w === 1 && s.table.version === t.version), 5000, "w1 getting the final table");
      for (const g of groupsOf(t, 1)) assert.equal(t.groups[g]!.epoch, initial.groups[g]!.epoch + 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("kills an old leader that does not acknowledge the revoke, and assigns only after its exit", async () => {
    const { hub, live, seen, events } = setup([false, true]);
    const initial = withoutWorker(initialTable(4, [0, 1]), 1, [0, 1]);
    // The primary's kill: SIGKILL, then the exit seen (the channel detached, the exit's reassignment queued).
    const kill = async (w: number): Promise<void> => {
      events.push(`killed w${w}`);
      live.delete(w);
      hub.detach(`w${w}`);
      keeper.workerGone(w);
    };
    const keeper: GroupKeeper = new GroupKeeper({ initial, dataDir: null, endpoint: hub.endpoint, ackMs: 50, logger: quiet, live: () => [...live], kill });
    keeper.workerReady(1);
    await keeper.settled();
    await keeper.settled(); // the exit's reassignment was queued behind the rebalance
    assert.deepEqual(events, ["killed w0"]);
    const t = keeper.current;
    assert.deepEqual(groupsOf(t, 1), [0, 1, 2, 3], "every group on the survivor");
    for (let g = 0; g < 4; g++) assert.equal(t.groups[g]!.epoch, initial.groups[g]!.epoch + 1, `g${g}: one new epoch`);
    await eventually(() => seen.some((s) => s.w === 1 && s.table.version === t.version), 5000, "w1 getting the final table");
    assert.ok(seen.filter((s) => s.w === 0).every((s) => groupsOf(s.table, 1).length === 0), "w0 never saw its groups given away while it ran");
  });
});
