// The README's "Cluster" script, run as a newcomer would paste it: its shell block is taken from
// README.md and run by bash from the repository, with only its port numbers swapped for free
// ones (so it cannot collide with anything else on the machine). It must leave three nodes, one
// leader, all in sync; then its whole process group is killed and its directory removed.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./cluster-fixture.js";
import { eventually } from "../helpers/wait.js";

const repo = new URL("../../..", import.meta.url).pathname;

/** The first ```sh block under "## Cluster" in README.md. */
function readmeScript(): string {
  const readme = readFileSync(join(repo, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("\n## Cluster\n"));
  const start = section.indexOf("```sh\n");
  assert.ok(start >= 0, "README's Cluster section has a sh block");
  return section.slice(start + 6, section.indexOf("\n```", start + 6));
}

describe("the README's cluster script", { timeout: 110_000 }, () => {
  const tmp = mkdtempSync(join(tmpdir(), "coney-readme-"));
  let shell: ChildProcess | null = null;
  let output = "";
  after(() => {
    // The script's etcd and nodes run in the background of its shell: one process group.
    if (shell?.pid) {
      try {
        process.kill(-shell.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  it("starts three nodes on an etcd, one of them the leader, all in sync", async () => {
    let script = readmeScript();
    const ports = new Map<string, number>();
    for (const m of script.matchAll(/\b(?:5\d{3}|1\d{4}|2\d{4})\b/g)) if (!ports.has(m[0])) ports.set(m[0], await freePort());
    assert.ok(ports.size >= 11, `the script's ports: ${[...ports.keys()].join(", ")}`);
    for (const [from, to] of ports) script = script.replaceAll(new RegExp(`\\b${from}\\b`, "g"), String(to));
    // mktemp -d creates the data under this test's directory.
    shell = spawn("bash", ["-c", script], { cwd: repo, detached: true, env: { ...process.env, TMPDIR: tmp }, stdio: ["ignore", "pipe", "pipe"] });
    shell.stdout!.on("data", (d: Buffer) => (output += d.toString()));
    shell.stderr!.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => shell!.on("exit", (code) => resolve(code)));
    // The script ends once a follower's port answers /api/nodes.
    assert.equal(await exited, 0, output);
    const http = ports.get("15682")!;
    let nodes: Array<{ name: string; running: boolean; cluster_leader: boolean; in_sync: boolean }> = [];
    await eventually(async () => {
      const r = await fetch(`http://127.0.0.1:${http}/api/nodes`, { headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` } }).catch(() => null);
      nodes = r?.ok ? ((await r.json()) as typeof nodes) : [];
      return nodes.length === 3 && nodes.every((n) => n.running && n.in_sync);
    }, 60_000, `three running nodes in sync (last: ${JSON.stringify(nodes)}; output: ${output})`);
    assert.deepEqual(nodes.map((n) => n.name).sort(), ["a@local", "b@local", "c@local"]);
    assert.equal(nodes.filter((n) => n.cluster_leader).length, 1);
  });
});
