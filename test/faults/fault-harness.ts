/**
 * Helpers that make faults for real: a small tmpfs (a disk that fills up), a filler file that
 * takes its free space, and brokers in child processes (killed with SIGKILL, frozen with SIGSTOP,
 * started under a low `ulimit -n`). Mounting needs root (CI runs the suite as root); without it a
 * test fails with a message naming what it needs: a fault test never skips silently.
 */
import { execFileSync, spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import type { ConfirmChannel } from "amqplib";
import { eventually, withTimeout } from "../helpers/wait.js";

const bin = new URL("../../../bin/coney.js", import.meta.url).pathname;

export interface Tmpfs {
  readonly dir: string;
  /** Unmounts and removes the mount point. */
  unmount(): void;
}

/** Mounts a tmpfs of `sizeMb` MB; fails (never skips) when not root. */
export function mountTmpfs(sizeMb: number): Tmpfs {
  if (process.getuid?.() !== 0) {
    throw new Error("this fault test needs root: it mounts a small tmpfs (mount -t tmpfs) to fill a disk for real; run the suite as root, as CI does");
  }
  const dir = mkdtempSync(join(tmpdir(), "coney-fault-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m`, "tmpfs", dir]);
  return {
    dir,
    unmount() {
      try {
        execFileSync("umount", ["-l", dir]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A tmpfs for the enclosing describe(): mounted before its tests, unmounted after; returns its mount point's getter. */
export function tmpfsForSuite(sizeMb: number): () => string {
  let fs: Tmpfs | null = null;
  before(() => {
    fs = mountTmpfs(sizeMb);
  });
  after(() => fs?.unmount());
  return () => fs!.dir;
}

export function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

/** Takes all but `leaveBytes` of the file system's free space with one file; returns its path (delete it to free the space). */
export function fillDisk(dir: string, leaveBytes = 0): string {
  const path = join(dir, `filler-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  try {
    for (;;) {
      const room = freeBytes(dir) - leaveBytes;
      if (room <= 0) break;
      try {
        writeSync(fd, chunk, 0, Math.min(chunk.length, room));
      } catch {
        break; // ENOSPC: full
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

export interface ChildBroker {
  readonly child: ChildProcess;
  readonly amqpPort: number;
  readonly httpPort: number | null;
  readonly url: string;
  /** Everything the broker wrote on stderr so far (when piped). */
  log(): string;
  /** Resolves with the exit code or signal once the process is gone. */
  readonly exited: Promise<string>;
  /** True while the process runs. */
  alive(): boolean;
  kill(signal?: NodeJS.Signals): Promise<string>;
}

export interface SpawnOptions {
  readonly dataDir: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Runs `node bin/coney.js` under bash with this `ulimit -n`. */
  readonly fdLimit?: number;
  /** Where stderr goes: piped (default; the ports are read from it) or an fd (a file). */
  readonly stderrFd?: number;
  /** With stderrFd: reads the log from this file to find the ports. */
  readonly stderrFile?: string;
  readonly http?: boolean;
  /** Runs store-child.js with these StartOptions instead of bin/coney.js (the CLI flags are ignored). */
  readonly storeOptions?: Record<string, unknown>;
}

const storeChild = new URL("./store-child.js", import.meta.url).pathname;

/** Starts `node bin/coney.js` on loopback ephemeral ports and waits for its listeners. */
export async function spawnChildBroker(o: SpawnOptions): Promise<ChildBroker> {
  const cliArgs = [bin, "--amqp-port", "0", "--http-port", o.http ? "0" : "off", "--prometheus-port", "off", "--mqtt-port", "off", "--web-mqtt-port", "off", "--stomp-port", "off", "--web-stomp-port", "off", "--stream-port", "off", "--bind", "127.0.0.1", "--data-dir", o.dataDir, "--log-level", "info", ...(o.args ?? [])];
  const args = o.storeOptions === undefined ? cliArgs : [storeChild, JSON.stringify({ dataDir: o.dataDir, ...o.storeOptions })];
  const stdio: StdioOptions = ["ignore", "ignore", o.stderrFd ?? "pipe"];
  const env = { ...process.env, ...o.env };
  const child =
    o.fdLimit === undefined
      ? spawn(process.execPath, args, { stdio, env })
      : spawn("bash", ["-c", `ulimit -n ${o.fdLimit} && exec "$0" "$@"`, process.execPath, ...args], { stdio, env });
  let log = "";
  let running = true;
  const exited = new Promise<string>((resolve) =>
    child.on("exit", (code, signal) => {
      running = false;
      resolve(signal ?? String(code));
    }),
  );
  child.stderr?.on("data", (d: Buffer) => (log += d.toString()));
  const readLog = async (): Promise<string> => {
    if (o.stderrFile === undefined) return log;
    const { readFileSync } = await import("node:fs");
    return readFileSync(o.stderrFile, "utf8");
  };
  const ports = await withTimeout(
    (async () => {
      for (;;) {
        if (!running) throw new Error(`broker exited at startup: ${await readLog()}`);
        const text = await readLog();
        const amqp = /"msg":"AMQP 0-9-1 listener started","port":(\d+)/.exec(text);
        const http = /"msg":"management API listener started","port":(\d+)/.exec(text);
        if (amqp && (!o.http || http)) return { amqp: Number(amqp[1]), http: http ? Number(http[1]) : null };
        await new Promise((r) => setTimeout(r, 20));
      }
    })(),
    15_000,
    "the child broker's listeners",
  );
  return {
    child,
    amqpPort: ports.amqp,
    httpPort: ports.http,
    url: `amqp://guest:guest@127.0.0.1:${ports.amqp}`,
    log: () => log,
    exited,
    alive: () => running,
    async kill(signal: NodeJS.Signals = "SIGKILL") {
      if (running) child.kill(signal);
      return exited;
    },
  };
}

/** Publishes persistent 4 KB messages (ids in messageId) with confirms until `nacksWanted` nacks came back. */
export async function publishUntilNacked(ch: ConfirmChannel, nacksWanted: number, body: Buffer): Promise<{ acked: string[]; nacked: string[] }> {
  const acked: string[] = [];
  const nacked: string[] = [];
  let inflight = 0;
  let published = 0;
  let wake: (() => void) | null = null;
  for (let i = 0; nacked.length < nacksWanted; i++) {
    while (inflight >= 200 && nacked.length < nacksWanted) await new Promise<void>((r) => (wake = r));
    if (i > 200_000) throw new Error("the store never failed a write: the disk did not fill up");
    inflight++;
    published++;
    const id = `m${i}`;
    ch.publish("amq.fanout", "", body, { persistent: true, messageId: id }, (err: unknown) => {
      inflight--;
      (err === null || err === undefined ? acked : nacked).push(id);
      const w = wake;
      wake = null;
      w?.();
    });
  }
  // Every publish answered: amqplib's waitForConfirms() rejects at the first nack among those
  // still out, while the others' confirms are yet to come (the counts below would miss them).
  await eventually(() => acked.length + nacked.length === published, 10_000, "every publish confirmed or nacked");
  return { acked, nacked };
}

/** Message ids `m<n>` in the order of n. */
export const sortedIds = (ids: Iterable<string>): string[] => [...ids].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
