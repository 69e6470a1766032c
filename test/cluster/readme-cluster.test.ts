// The README's "Cluster" script, run as a newcomer would paste it: its shell block is taken from
// README.md and run by bash from the repository, with only its port numbers swapped for free
// ones (so it cannot collide with anything else on the machine). It must leave three nodes, one
// leader, all in sync; then its whole process group is killed and its directory removed.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
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

/** Kills a script's whole process group (its etcd and nodes run in its background). */
function killGroup(p: ChildProcess | null): void {
  if (!p?.pid) return;
  try {
    process.kill(-p.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/**
 * Ports found free a moment ago may be taken by another test's process before the script's etcd
 * or nodes bind them (files run in parallel): then a node exits and the script's wait for it
 * would never end. Such a run is stopped as soon as it says so and started again on fresh ports;
 * any other failure is reported with everything the script printed (a timeout of the whole file
 * would show none of it).
 */
const ATTEMPTS = 3;
const SCRIPT_MS = 40_000;
const PORT_TAKEN = /EADDRINUSE|address already in use/;

/**
 * True when `output` says one of the script's own ports was taken. Another program holding a
 * default port the script does not set (RabbitMQ's or Mosquitto's MQTT on 1883, a stream port)
 * only costs that node a side listener, retried in the background: not a reason to start again.
 */
function ownPortTaken(output: string, ports: ReadonlySet<number>): boolean {
  return output.split("\n").some((line) => {
    if (!PORT_TAKEN.test(line)) return false;
    for (const m of line.matchAll(/\d{2,5}/g)) if (ports.has(Number(m[0]))) return true;
    return false;
  });
}

describe("the README's cluster script", { timeout: 150_000 }, () => {
  const tmp = mkdtempSync(join(tmpdir(), "coney-readme-"));
  let shell: ChildProcess | null = null;
  after(() => {
    killGroup(shell);
    rmSync(tmp, { recursive: true, force: true });
  });

  /** Runs the script on fresh ports; resolves with its HTTP port of node b once the script ended well. */
  async function run(attempt: number): Promise<{ http: number; output: string } | { portTaken: string }> {
    let script = readmeScript();
    const ports = new Map<string, number>();
    for (const m of script.matchAll(/\b(?:5\d{3}|1\d{4}|2\d{4})\b/g)) if (!ports.has(m[0])) ports.set(m[0], await freePort());
    assert.ok(ports.size >= 11, `the script's ports: ${[...ports.keys()].join(", ")}`);
    for (const [from, to] of ports) script = script.replaceAll(new RegExp(`\\b${from}\\b`, "g"), String(to));
    // mktemp -d creates the data under this test's directory.
    const dir = join(tmp, `attempt-${attempt}`);
    mkdirSync(dir);
    let output = "";
    let portTaken: () => void = () => undefined;
    const taken = new Promise<"taken">((resolve) => (portTaken = () => resolve("taken")));
    const p = spawn("bash", ["-c", script], { cwd: repo, detached: true, env: { ...process.env, TMPDIR: dir }, stdio: ["ignore", "pipe", "pipe"] });
    shell = p;
    const own = new Set(ports.values());
    const keep = (d: Buffer): void => {
      output += d.toString();
      if (ownPortTaken(output, own)) portTaken();
    };
    p.stdout!.on("data", keep);
    p.stderr!.on("data", keep);
    const exited = new Promise<number | null>((resolve) => p.on("exit", (code) => resolve(code)));
    // The script ends once a follower's port answers /api/nodes.
    const late = new Promise<"late">((r) => setTimeout(() => r("late"), SCRIPT_MS).unref());
    const code = await Promise.race([exited, taken, late]);
    if (code === 0) return { http: ports.get("15682")!, output };
    killGroup(p);
    if (code === "taken") return { portTaken: output };
    assert.fail(`the script ${code === "late" ? `had not ended after ${SCRIPT_MS} ms` : `exited with ${code}`}; it printed:\n${output}`);
  }

  it("starts three nodes on an etcd, one of them the leader, all in sync", async () => {
    let result: Awaited<ReturnType<typeof run>> | null = null;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      result = await run(attempt);
      if ("http" in result) break;
    }
    assert.ok(result !== null && "http" in result, `a port was taken in each of ${ATTEMPTS} attempts; the last printed:\n${result !== null && "portTaken" in result ? result.portTaken : ""}`);
    const { http, output } = result;
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
