/**
 * `coney-perf spread` (issue 42): how a broker of several nodes — `coney --workers N` on one
 * machine, or a cluster — shares the work. Two parts, one table each:
 *
 * 1. **Aggregate**: Q queues, one producer and one consumer process per queue (their connections
 *    land on the nodes as the broker spreads them); the run's msg/s, the broker's CPU per message
 *    summed over every node process, and each node's share of that CPU.
 * 2. **Local against forwarded**: one publisher (with confirms) and one consumer on one
 *    connection, first on the node that leads the queue, then on another node, so each message
 *    crosses to the leader and back; the broker's CPU per message (summed over nodes) of each.
 *
 * The nodes and their processes come from the management API (`/api/nodes`: `name`, `os_pid`); a
 * connection's node and a queue's leader from `/api/connections` and `/api/queues` (`node`). CPU is
 * read from /proc, so the broker must run on this machine (Linux).
 */
import http from "node:http";
import { AMQPClient, type AMQPBaseClient } from "@cloudamqp/amqp-client";
import { DEFAULT_PERF_OPTIONS, queueName, type PerfOptions } from "./perf-options.js";
import { runPerf } from "./perf-run.js";
import { cpuSeconds, wakeUps } from "./process-cpu.js";

export interface SpreadBenchOptions {
  readonly uri: string;
  /** The management API with credentials: http://guest:guest@127.0.0.1:15672 */
  readonly http: string;
  readonly queues: number;
  readonly size: number;
  readonly confirm: number;
  readonly prefetch: number;
  readonly durationSeconds: number;
  /** Only the local-against-forwarded pair (no aggregate run first). */
  readonly pairOnly?: boolean;
}

export interface NodeProcess {
  readonly name: string;
  readonly pid: number;
}

/** A GET on a connection of its own: a broker of several nodes may hand each connection to another node. */
function api<T>(base: string, path: string): Promise<T> {
  const u = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: u.hostname, port: u.port, path: u.pathname + u.search, agent: false, auth: `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => (res.statusCode === 200 ? resolve(JSON.parse(body) as T) : reject(new Error(`GET ${path}: ${res.statusCode} ${body}`))));
    });
    req.on("error", reject);
  });
}

export async function nodeProcesses(http: string): Promise<NodeProcess[]> {
  const nodes = await api<Array<{ name: string; os_pid?: string; running?: boolean }>>(http, "/api/nodes");
  return nodes.filter((n) => n.running !== false).map((n) => {
    const pid = Number(n.os_pid);
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`node ${n.name} reports no os_pid`);
    return { name: n.name, pid };
  });
}

/**
 * A client connection with Nagle's algorithm off, as most AMQP clients set theirs (amqplib, the Java
 * client): this client leaves it on, and the pair's one-batch-at-a-time traffic then waits out the
 * broker's delayed ACK (about 40 ms per batch of 100, against RabbitMQ too), so its figures measured
 * idle turns rather than the broker's work per message (docs/PERFORMANCE.md, "Forwarded cost, seventh pass").
 */
export async function connectNoDelay(uri: string): Promise<AMQPBaseClient> {
  const client = new AMQPClient(uri);
  const conn = await client.connect();
  client.socket?.setNoDelay(true);
  return conn;
}

const cpuOf = (nodes: readonly NodeProcess[]): number[] => nodes.map((n) => cpuSeconds(n.pid));
const µsPer = (seconds: number, messages: number): string => (messages > 0 ? `${((seconds * 1e6) / messages).toFixed(2)} µs` : "n/a");

export async function runSpreadBench(o: SpreadBenchOptions, print: (line: string) => void): Promise<void> {
  const nodes = await nodeProcesses(o.http);
  print(`nodes: ${nodes.map((n) => `${n.name} (pid ${n.pid})`).join(", ")}`);
  if (o.pairOnly !== true) await aggregateRun(o, nodes, {}, print);
  await localAgainstForwarded(o, nodes, print);
}

/**
 * The aggregate part: Q queues, a producer and a consumer process each, for the run's duration;
 * `placing` says where they connect and where the queues are declared (a spread cluster's
 * addresses; `{}`: all through `o.uri`). Prints one table: rates, CPU per message, each node's share.
 */
export async function aggregateRun(o: SpreadBenchOptions, nodes: readonly NodeProcess[], placing: Pick<PerfOptions, "producerUris" | "consumerUris" | "declareUris">, print: (line: string) => void): Promise<void> {
  const perf: PerfOptions = {
    ...DEFAULT_PERF_OPTIONS,
    uri: o.uri,
    producers: o.queues,
    consumers: o.queues,
    queues: o.queues,
    size: o.size,
    confirm: o.confirm,
    prefetch: o.prefetch,
    durationSeconds: o.durationSeconds,
    queuePrefix: "spread",
    ...placing,
  };
  const before = cpuOf(nodes);
  const result = await runPerf(perf);
  const used = cpuOf(nodes).map((c, i) => c - before[i]!);
  const total = used.reduce((a, b) => a + b, 0);
  print("");
  print(`| ${o.queues} queues, ${o.size} B | msg/s published | msg/s consumed | broker CPU / msg (all nodes) | ${nodes.map((n) => `${n.name} share`).join(" | ")} |`);
  print(`|---|---|---|---|${nodes.map(() => "---|").join("")}`);
  const shares = used.map((u) => (total > 0 ? `${((100 * u) / total).toFixed(0)}%` : "n/a"));
  print(`| aggregate | ${Math.round(result.publishedPerSecond)} | ${Math.round(result.consumedPerSecond)} | ${µsPer(total, result.published)} | ${shares.join(" | ")} |`);
  print("");
}

/**
 * The node a connection (by its client-provided name) is on. A node lists its own connections
 * (`coney --workers N` does not aggregate /api/connections yet), and requests land on any node:
 * asked a few times, each node answers once in all likelihood.
 */
async function nodeOfConnection(http: string, name: string): Promise<string | undefined> {
  for (let i = 0; i < 8; i++) {
    const conns = await api<Array<{ node: string; client_properties?: { connection_name?: string } }>>(http, "/api/connections");
    const node = conns.find((x) => x.client_properties?.connection_name === name)?.node;
    if (node !== undefined) return node;
  }
  return undefined;
}

/** One publisher and one consumer on connection `conn` for the run's duration; broker CPU per message. */
async function pairRun(o: SpreadBenchOptions, nodes: readonly NodeProcess[], conn: AMQPBaseClient, queue: string): Promise<{ messages: number; cpu: number; wakes: number }> {
  const pub = await conn.channel();
  const sub = await conn.channel();
  await sub.prefetch(Math.max(1, o.prefetch));
  let consumed = 0;
  await sub.basicConsume(queue, { noAck: false }, (m) => {
    consumed++;
    void m.ack();
  });
  await pub.confirmSelect();
  const body = Buffer.alloc(Math.max(8, o.size));
  const window = Math.max(1, o.confirm);
  const before = cpuOf(nodes);
  const wakesBefore = nodes.reduce((a, n) => a + wakeUps(n.pid), 0);
  const until = Date.now() + o.durationSeconds * 1000;
  const inflight: Promise<unknown>[] = [];
  while (Date.now() < until) {
    inflight.push(pub.basicPublish("", queue, body));
    if (inflight.length >= window) await Promise.all(inflight.splice(0));
  }
  await Promise.all(inflight);
  const used = cpuOf(nodes).reduce((a, c, i) => a + c - before[i]!, 0);
  const wakes = nodes.reduce((a, n) => a + wakeUps(n.pid), 0) - wakesBefore;
  await pub.close();
  await sub.close();
  return { messages: consumed, cpu: used, wakes };
}

async function localAgainstForwarded(o: SpreadBenchOptions, nodes: readonly NodeProcess[], print: (line: string) => void): Promise<void> {
  if (nodes.length < 2) {
    print("local against forwarded: n/a (the broker has one node)");
    return;
  }
  const queue = queueName({ ...DEFAULT_PERF_OPTIONS, queuePrefix: "spread-pair" }, 0);
  const setup = await new AMQPClient(o.uri).connect();
  const ch = await setup.channel();
  await ch.queueDeclare(queue, { durable: false });
  const leader = (await api<{ node: string }>(o.http, `/api/queues/%2F/${encodeURIComponent(queue)}`)).node;
  // Connections land where the broker puts them: open probes until one is on the leader and one is not.
  const probes: AMQPBaseClient[] = [];
  let local: AMQPBaseClient | null = null;
  let remote: AMQPBaseClient | null = null;
  for (let i = 0; i < 32 && (local === null || remote === null); i++) {
    const name = `spread-probe-${process.pid}-${i}`;
    const c = await connectNoDelay(`${o.uri}${o.uri.includes("?") ? "&" : "?"}name=${name}`);
    probes.push(c);
    const node = await nodeOfConnection(o.http, name);
    if (node === leader && local === null) local = c;
    else if (node !== undefined && node !== leader && remote === null) remote = c;
  }
  try {
    if (local === null || remote === null) throw new Error(`could not get a connection on the leader (${leader}) and one elsewhere in 32 tries`);
    await pairTable(o, nodes, local, remote, queue, print);
  } finally {
    await ch.queueDelete(queue).catch(() => {});
    for (const c of probes) await c.close().catch(() => {});
    await setup.close();
  }
}

/** The pair part: one publisher + consumer on `local` (the queue's leading node), then on `remote` (another node); one table. */
export async function pairTable(o: SpreadBenchOptions, nodes: readonly NodeProcess[], local: AMQPBaseClient, remote: AMQPBaseClient, queue: string, print: (line: string) => void): Promise<void> {
  const l = await pairRun(o, nodes, local, queue);
  const r = await pairRun(o, nodes, remote, queue);
  // Wake-ups: the nodes' event-loop wake-ups (voluntary context switches) per message: a latency-bound pair pays turns, not work.
  const perWake = (x: { messages: number; wakes: number }): string => (x.wakes > 0 ? (x.messages / x.wakes).toFixed(1) : "n/a");
  print(`| one publisher + consumer, ${o.size} B | messages | broker CPU / msg (all nodes) | msg per wake-up (all nodes) |`);
  print("|---|---|---|---|");
  print(`| on the leading node | ${l.messages} | ${µsPer(l.cpu, l.messages)} | ${perWake(l)} |`);
  print(`| on another node (forwarded) | ${r.messages} | ${µsPer(r.cpu, r.messages)} | ${perWake(r)} |`);
  if (l.messages > 0 && r.messages > 0) print(`forwarded / local: ${(r.cpu / r.messages / (l.cpu / l.messages)).toFixed(2)}×`);
}
