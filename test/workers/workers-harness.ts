/**
 * `coney --workers 2` as a real process tree for tests: the primary spawned from bin/coney.js
 * with the preview switch, every listener on a port the primary picks (port 0), its log read as
 * it comes (JSON lines on stderr), its data dir removed at the end.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { apiClient, type Api } from "../helpers/http-client.js";
import { withTimeout } from "../helpers/wait.js";

const bin = new URL("../../../bin/coney.js", import.meta.url).pathname;

/** Every listener, on port 0 (the primary picks it) or off. */
const LISTENERS = ["--amqp-port", "0", "--http-port", "0", "--prometheus-port", "0", "--mqtt-port", "0", "--web-mqtt-port", "0", "--stomp-port", "0", "--web-stomp-port", "0", "--stream-port", "0"];

export interface LogLine {
  readonly msg: string;
  readonly [field: string]: unknown;
}

export class WorkersProcess {
  readonly lines: LogLine[] = [];
  /** What it wrote on stderr that is no log line (`coney: …` before an exit). */
  readonly said: string[] = [];
  private readonly waiters: Array<{ match: (l: LogLine) => boolean; resolve: (l: LogLine) => void }> = [];
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  readonly api: Api;
  amqpPort = 0;
  httpPort = 0;

  constructor(
    readonly child: ChildProcessByStdio<null, null, Readable>,
    readonly dataDir: string,
  ) {
    this.api = apiClient(() => `http://127.0.0.1:${this.httpPort}`);
    this.exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
    let partial = "";
    child.stderr.on("data", (d: Buffer) => {
      partial += d.toString();
      const whole = partial.split("\n");
      partial = whole.pop()!;
      for (const text of whole) {
        if (!text.startsWith("{")) {
          if (text !== "") this.said.push(text);
          continue;
        }
        const line = JSON.parse(text) as LogLine;
        this.lines.push(line);
        for (const w of [...this.waiters]) {
          if (!w.match(line)) continue;
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    });
  }

  /** The first log line (already written or still to come) that `match` accepts, counting from line `from`. */
  logLine(match: (l: LogLine) => boolean, what: string, ms = 30_000, from = 0): Promise<LogLine> {
    const seen = this.lines.slice(from).find(match);
    if (seen) return Promise.resolve(seen);
    return withTimeout(new Promise<LogLine>((resolve) => this.waiters.push({ match, resolve })), ms, what);
  }

  get amqpUrl(): string {
    return `amqp://guest:guest@127.0.0.1:${this.amqpPort}`;
  }

  workersJson(): { version: number; groups: Array<{ group: string; worker: string | null; epoch: number }> } {
    return JSON.parse(readFileSync(join(this.dataDir, "workers.json"), "utf8"));
  }

  /** Kills what is left (the primary; its workers follow it) and removes the data dir. */
  async close(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
    await this.exited;
    // Its workers exit on their own when the primary's IPC channel closes, but one still starting
    // can take seconds, holding this process's end of the stderr pipe open: killed here.
    for (const l of this.lines) {
      if (l.msg !== "worker started" || typeof l["pid"] !== "number") continue;
      try {
        process.kill(l["pid"], "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** Starts `coney --workers 2` (more flags in `extra`; on `dataDir`, removed at close) and waits for its "Coney started" line. */
export async function startWorkers(extra: string[] = [], env: NodeJS.ProcessEnv = {}, dataDir = mkdtempSync(join(tmpdir(), "coney-workers-"))): Promise<WorkersProcess> {
  const child = spawn(process.execPath, [bin, "--workers", "2", ...LISTENERS, "--bind", "127.0.0.1", "--data-dir", dataDir, "--log-format", "json", ...extra], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...env },
  });
  const p = new WorkersProcess(child, dataDir);
  // Should the runner stop this file mid-test, the primary goes with it (and its workers with the primary).
  const reap = (): void => void child.kill("SIGKILL");
  process.once("exit", reap);
  child.once("exit", () => process.off("exit", reap));
  // A start that never ends, or exits first, says what the process tree last logged (and said, exiting).
  const exitedFirst = p.exited.then(({ code, signal }) => Promise.reject(new Error(`exited before its start line (exit ${code ?? signal})`)));
  const started = await Promise.race([p.logLine((l) => l.msg === "Coney started", "the primary's start line", 60_000), exitedFirst]).catch((err: Error) => {
    const last = p.lines.slice(-15).map((l) => `${String(l["level"])} ${l.msg} ${typeof l["node"] === "string" ? l["node"] : ""}`);
    throw new Error(`${err.message}; exit ${p.child.exitCode ?? p.child.signalCode ?? "none yet"}; its last lines:\n${[...last, ...p.said].join("\n")}`);
  });
  exitedFirst.catch(() => undefined);
  p.amqpPort = started["amqp_port"] as number;
  p.httpPort = started["http_port"] as number;
  return p;
}

/** Whether `pid` is a live process (a zombie left for its reaper counts as gone). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.charAt(stat.lastIndexOf(")") + 2) !== "Z";
  } catch {
    return false;
  }
}

/** The worker (`w<i>`) a worker's node name names (`coney-w1@host` → `w1`; workers are named as spread workers are: worker-node-name.ts). */
export function workerOf(node: string): string {
  const m = /-(w\d+)(@|$)/.exec(node);
  if (m === null) throw new Error(`${node} is no worker's node name`);
  return m[1]!;
}
