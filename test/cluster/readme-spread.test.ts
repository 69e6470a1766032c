// The README's "Spread cluster" script, run as a newcomer would paste it (readme-script.ts): it must
// leave three spread nodes linked to each other; a queue declared through node a (the management
// API, client-local placement) is homed on a, as node c's API says. Then its whole process group
// is killed and its directory removed.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "../helpers/wait.js";
import { ReadmeScript } from "./readme-script.js";

const AUTH = { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` };

describe("the README's spread cluster script", { timeout: 150_000 }, () => {
  const tmp = mkdtempSync(join(tmpdir(), "coney-readme-spread-"));
  const script = new ReadmeScript("## Spread cluster: every node leads queues (`--cluster-mode spread`, a preview)", tmp, 14);
  after(() => {
    script.kill();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("starts three spread nodes on an etcd, linked; a queue declared through one is homed there, seen from another", async () => {
    const { ports, output } = await script.run();
    const [a, c] = [ports.get("15681")!, ports.get("15683")!];
    // Node c's view of the others' `running` follows their records and links, which come up a moment after the script's last line.
    let seen = "";
    await eventually(async () => {
      const nodes = (await (await fetch(`http://127.0.0.1:${c}/api/nodes`, { headers: AUTH })).json()) as Array<{ name: string; running: boolean }>;
      seen = JSON.stringify(nodes.map((n) => [n.name, n.running]).sort());
      return seen === JSON.stringify([["a@local", true], ["b@local", true], ["c@local", true]]);
    }, 20_000, "node c to list all three nodes running").catch((err: Error) => assert.fail(`${err.message} (last: ${seen}; output: ${output})`));
    const put = await fetch(`http://127.0.0.1:${a}/api/queues/%2F/readme-spread`, { method: "PUT", headers: { ...AUTH, "content-type": "application/json" }, body: JSON.stringify({ durable: true }) });
    assert.ok(put.ok, `declared through a: ${put.status}`);
    let home = "";
    await eventually(async () => {
      const r = await fetch(`http://127.0.0.1:${c}/api/queues/%2F/readme-spread`, { headers: AUTH });
      home = r.ok ? ((await r.json()) as { node: string }).node : "";
      return home === "a@local";
    }, 20_000, "node c to name the queue's home").catch((err: Error) => assert.fail(`${err.message} (last: '${home}'; output: ${output})`));
  });
});
