// The README's "Cluster" script, run as a newcomer would paste it (readme-script.ts): it must leave
// three nodes, one leader, all in sync; then its whole process group is killed and its directory
// removed.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "../helpers/wait.js";
import { ReadmeScript } from "./readme-script.js";

describe("the README's cluster script", { timeout: 150_000 }, () => {
  const tmp = mkdtempSync(join(tmpdir(), "coney-readme-"));
  const script = new ReadmeScript("## Cluster", tmp, 11);
  after(() => {
    script.kill();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("starts three nodes on an etcd, one of them the leader, all in sync", async () => {
    const { ports, output } = await script.run();
    const http = ports.get("15682")!;
    let nodes: Array<{ name: string; running: boolean; cluster_leader: boolean; in_sync: boolean }> = [];
    await eventually(async () => {
      const r = await fetch(`http://127.0.0.1:${http}/api/nodes`, { headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` } }).catch(() => null);
      nodes = r?.ok ? ((await r.json()) as typeof nodes) : [];
      return nodes.length === 3 && nodes.every((n) => n.running && n.in_sync);
    }, 60_000, "three running nodes in sync").catch((err: Error) => {
      // What /api/nodes said last, not when the wait began.
      throw new Error(`${err.message} (last: ${JSON.stringify(nodes)}; output: ${output})`);
    });
    assert.deepEqual(nodes.map((n) => n.name).sort(), ["a@local", "b@local", "c@local"]);
    assert.equal(nodes.filter((n) => n.cluster_leader).length, 1);
  });
});
