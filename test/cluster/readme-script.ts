/**
 * A README shell block run as a newcomer would paste it (readme-cluster.test.ts, readme-spread.test.ts):
 * the first ```sh block under a heading of README.md, run by bash from the repository with only its
 * port numbers swapped for free ones (so it cannot collide with anything else on the machine), in a
 * process group of its own that `kill()` ends, its `mktemp -d` data under a directory of the test's.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "./cluster-fixture.js";

const repo = new URL("../../..", import.meta.url).pathname;

/** The first ```sh block under `heading` (a line of README.md, e.g. "## Cluster"). */
export function readmeScript(heading: string): string {
  const readme = readFileSync(join(repo, "README.md"), "utf8");
  const at = readme.indexOf(`\n${heading}\n`);
  assert.ok(at >= 0, `README has a section ${heading}`);
  const section = readme.slice(at);
  const start = section.indexOf("```sh\n");
  assert.ok(start >= 0, `README's ${heading} section has a sh block`);
  return section.slice(start + 6, section.indexOf("\n```", start + 6));
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
// Node's own error text, and the broker's (src/listeners/bind-failure.ts: "the address is already in use").
const PORT_TAKEN = /EADDRINUSE|address already in use|address is already in use/;

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

/** Kills a script's whole process group (its etcd and nodes run in its background). */
function killGroup(p: ChildProcess | null): void {
  if (!p?.pid) return;
  try {
    process.kill(-p.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** A README script's run: its ports (README's number → the free one used) and what it printed. */
export interface ScriptRun {
  readonly ports: ReadonlyMap<string, number>;
  readonly output: string;
}

export class ReadmeScript {
  private shell: ChildProcess | null = null;

  constructor(private readonly heading: string, private readonly tmp: string, private readonly minPorts: number) {}

  /** Runs the script until it ends well (exit 0), on fresh ports again when one of its own was taken. */
  async run(): Promise<ScriptRun> {
    let last = "";
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const result = await this.attempt(attempt);
      if ("ports" in result) return result;
      last = result.portTaken;
    }
    assert.fail(`a port was taken in each of ${ATTEMPTS} attempts; the last printed:\n${last}`);
  }

  kill(): void {
    killGroup(this.shell);
  }

  private async attempt(attempt: number): Promise<ScriptRun | { portTaken: string }> {
    let script = readmeScript(this.heading);
    const ports = new Map<string, number>();
    for (const m of script.matchAll(/\b(?:5\d{3}|1\d{4}|2\d{4})\b/g)) if (!ports.has(m[0])) ports.set(m[0], await freePort());
    assert.ok(ports.size >= this.minPorts, `the script's ports: ${[...ports.keys()].join(", ")}`);
    for (const [from, to] of ports) script = script.replaceAll(new RegExp(`\\b${from}\\b`, "g"), String(to));
    // mktemp -d creates the data under this test's directory.
    const dir = join(this.tmp, `attempt-${attempt}`);
    mkdirSync(dir);
    let output = "";
    let portTaken: () => void = () => undefined;
    const taken = new Promise<"taken">((resolve) => (portTaken = () => resolve("taken")));
    const p = spawn("bash", ["-c", script], { cwd: repo, detached: true, env: { ...process.env, TMPDIR: dir }, stdio: ["ignore", "pipe", "pipe"] });
    this.shell = p;
    const own = new Set(ports.values());
    const keep = (d: Buffer): void => {
      output += d.toString();
      if (ownPortTaken(output, own)) portTaken();
    };
    p.stdout!.on("data", keep);
    p.stderr!.on("data", keep);
    const exited = new Promise<number | null>((resolve) => p.on("exit", (code) => resolve(code)));
    // The script ends once its last line's wait is over.
    const late = new Promise<"late">((r) => setTimeout(() => r("late"), SCRIPT_MS).unref());
    const code = await Promise.race([exited, taken, late]);
    if (code === 0) return { ports, output };
    killGroup(p);
    if (code === "taken") return { portTaken: output };
    assert.fail(`the script ${code === "late" ? `had not ended after ${SCRIPT_MS} ms` : `exited with ${code}`}; it printed:\n${output}`);
  }
}
