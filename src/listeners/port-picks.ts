/**
 * The ports the primary of `coney --workers N` picks for listeners configured with port 0
 * (worker-ports.ts says why the workers cannot bind port 0 themselves).
 *
 * A picked port is released before the workers bind it (node:cluster's shared handle is created in
 * the primary only when the first worker listens), so another process can take it in between.
 * Two rules keep that window harmless:
 * - **Below the ephemeral range.** On Linux every `listen(0)` and every outgoing connection takes
 *   its port from `ip_local_port_range` (32768–60999 by default): picks from there collide with
 *   other brokers' and clients' ports, seen as a failed start on a busy machine. Ports are
 *   therefore picked at random from up to 10,000 below that range and below 20,000 (each one bound
 *   and held while picking, so none is in use then); elsewhere the kernel's `listen(0)` picks.
 *   From 20,000 up the local cluster's nodes pick theirs (src/bench/local-cluster.ts, the tests'
 *   clusters), and bind them seconds later: the two kinds of pick must never meet.
 * - **Picked again when taken.** A worker that finds a picked port taken says so (`port-taken`)
 *   and exits; the primary stops the others and starts again on fresh picks (run-primary.ts).
 *   Ports the user set are never changed: a taken one fails the start with its setting named.
 */
import { readFileSync } from "node:fs";
import { createServer, type AddressInfo, type Server } from "node:net";

/** Attempts at one below-range port before the kernel's own pick is taken instead. */
const TRIES_PER_PORT = 50;
/** How many ports below the ephemeral range are candidates. */
const BELOW_RANGE = 10_000;
/** Where the local cluster's picks begin (local-cluster.ts freePort): the workers' stay below. */
export const CLUSTER_PICKS_FROM = 20_000;
/** The lowest candidate: never a privileged port. */
const LOWEST = 1024;

/** A worker found a port the primary picked already taken by another process. */
export class PickedPortTaken extends Error {
  constructor(readonly port: number, readonly protocol: string) {
    super(`the ${protocol} port ${port}, picked for port 0, was taken by another process before the workers bound it`);
  }
}

/** The kernel's ephemeral port range (Linux), or null where it cannot be read. */
export function ephemeralRange(path = "/proc/sys/net/ipv4/ip_local_port_range"): { low: number; high: number } | null {
  try {
    const [low, high] = readFileSync(path, "utf8").trim().split(/\s+/).map(Number);
    return Number.isInteger(low) && Number.isInteger(high) && low! > 0 && high! >= low! ? { low: low!, high: high! } : null;
  } catch {
    return null;
  }
}

/** The candidates below the ephemeral range and below the local cluster's picks, or null when too few lie there. */
export function belowRange(range: { low: number } | null): { from: number; to: number } | null {
  if (range === null) return null;
  const to = Math.min(range.low, CLUSTER_PICKS_FROM) - 1;
  const from = Math.max(LOWEST, to + 1 - BELOW_RANGE);
  return to - from + 1 >= 1024 ? { from, to } : null;
}

function hold(server: Server, port: number, bind: string): Promise<number | null> {
  return new Promise((resolve) => {
    const failed = (): void => resolve(null);
    server.once("error", failed);
    server.listen(port, bind === "" ? undefined : bind, () => {
      server.off("error", failed);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * `count` distinct free TCP ports on `bind`, held together while picked so none repeats:
 * below the ephemeral range where there is one, else the kernel's.
 */
export async function freePorts(count: number, bind: string, range = belowRange(ephemeralRange())): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      let port: number | null = null;
      for (let t = 0; range !== null && port === null && t < TRIES_PER_PORT; t++) {
        const s = createServer();
        const candidate = range.from + Math.floor(Math.random() * (range.to - range.from + 1));
        port = ports.includes(candidate) ? null : await hold(s, candidate, bind);
        if (port === null) s.close();
        else servers.push(s);
      }
      if (port === null) {
        const s = createServer();
        servers.push(s);
        port = await hold(s, 0, bind);
        if (port === null) throw new Error(`no free port on ${bind === "" ? "any interface" : bind}`);
      }
      ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => (s.listening ? s.close(r) : r(undefined)))));
  }
}

/** `err` as a taken picked port: a PickedPortTaken, or a bind failure (EADDRINUSE) on one of `picked`; else null. */
export function asTakenPickedPort(err: unknown, picked: readonly number[]): PickedPortTaken | null {
  if (err instanceof PickedPortTaken) return err;
  const e = err as { code?: unknown; port?: unknown } | null;
  if (e === null || typeof e !== "object" || e.code !== "EADDRINUSE" || typeof e.port !== "number" || !picked.includes(e.port)) return null;
  return new PickedPortTaken(e.port, "AMQP");
}

/** The first listener on a picked port that could not bind, as a PickedPortTaken; null when every one is up. */
export function downPickedListener(listeners: ReadonlyArray<{ protocol: string; port: number; up: boolean }>, picked: readonly number[]): PickedPortTaken | null {
  const down = listeners.find((l) => !l.up && picked.includes(l.port));
  return down === undefined ? null : new PickedPortTaken(down.port, down.protocol);
}
