/**
 * The node record of /api/nodes and /api/nodes/{name}, with the fields RabbitMQ 3.10's
 * management UI reads on its overview and node pages. Coney is one Node.js process, not an
 * Erlang VM: each Erlang figure is given as the nearest true figure of this process (README,
 * "The node record"), and the Erlang-only ones the UI can do without (reductions, GC, mnesia and
 * message-store I/O counters) are left out, as the UI draws only the charts whose fields exist.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { getHeapSpaceStatistics } from "node:v8";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SASL_MECHANISMS } from "../auth/sasl-mechanisms.js";
import { EXCHANGE_TYPES, type Broker, type NodeVersion, type ResourceAlarms } from "../broker/index.js";
import type { ConeyConfig } from "../config/config.js";
import { enabledPlugins } from "./node-plugins.js";
import { NODE_KEY, type Counters } from "./rate-sampler.js";
import { overviewChurn, overviewKey } from "./rate-sources.js";
import type { RouteContext } from "./route-table.js";

export const exchangeTypes = (): unknown[] =>
  [...EXCHANGE_TYPES].map(([name, t]) => ({ name, description: t.description, enabled: true })).sort((a, b) => a.name.localeCompare(b.name));

/** What does not change while the node runs: read once when the API starts. */
export interface NodeFacts {
  readonly applications: ReadonlyArray<{ name: string; description: string; version: string }>;
  readonly authMechanisms: ReadonlyArray<{ name: string; description: string; enabled: boolean }>;
  readonly configFiles: readonly string[];
  readonly dbDir: string;
}

interface PackageJson {
  name?: string;
  version?: string;
  description?: string;
  dependencies?: Record<string, string>;
}

const MECHANISM_TEXT: Record<string, string> = {
  PLAIN: "SASL PLAIN authentication mechanism",
  AMQPLAIN: "QPid AMQPLAIN mechanism",
};

/**
 * RabbitMQ lists the Erlang applications the node runs; Coney's equivalent is Coney itself, the
 * runtime dependencies it loaded (name and installed version from their package.json) and Node.js.
 */
function applications(): NodeFacts["applications"] {
  return (loadedApplications ??= readApplications());
}

/** Read once per process: the installed packages do not change under a running process, and
 *  reading ~20 package.json files cost each management listener's start 30 ms (a test broker per file). */
let loadedApplications: NodeFacts["applications"] | null = null;

function readApplications(): NodeFacts["applications"] {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
  const own = readPackage(join(root, "package.json"));
  const out: Array<{ name: string; description: string; version: string }> = [];
  if (own) out.push({ name: own.name ?? "coney", description: own.description ?? "", version: own.version ?? "" });
  const require = createRequire(join(root, "package.json"));
  for (const dep of Object.keys(own?.dependencies ?? {})) {
    const dir = (require.resolve.paths(dep) ?? []).map((p) => join(p, dep)).find((d) => existsSync(join(d, "package.json")));
    const pkg = dir ? readPackage(join(dir, "package.json")) : null;
    if (pkg) out.push({ name: dep, description: pkg.description ?? "", version: pkg.version ?? "" });
  }
  out.push({ name: "node", description: "Node.js JavaScript runtime", version: process.versions.node });
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

function readPackage(file: string): PackageJson | null {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as PackageJson;
  } catch {
    return null;
  }
}

/** A node's `applications` as far as its registered version tells (another node that did not answer): what cluster_status reads. */
export function versionApplications(v: NodeVersion): NodeFacts["applications"] {
  return [
    { name: "coney", description: "", version: v.coney },
    { name: "node", description: "Node.js JavaScript runtime", version: v.node },
  ];
}

export function nodeFacts(config: ConeyConfig): NodeFacts {
  return {
    applications: applications(),
    authMechanisms: SASL_MECHANISMS.map((name) => ({ name, description: MECHANISM_TEXT[name] ?? name, enabled: true })),
    configFiles: config.configFile === null ? [] : [resolve(config.configFile)],
    // An in-memory node keeps no data directory (--in-memory writes nothing to disk).
    dbDir: config.inMemory ? "" : resolve(config.dataDir),
  };
}

/**
 * Where the log goes: Coney logs to stderr (src/logging/logger.ts), so that is its one log; when
 * stderr is a regular file (`coney 2>>/var/log/coney.log`, a service manager's log file), the
 * file's path, as RabbitMQ names its log files. `<stderr>` for a terminal, pipe or socket.
 */
function logFiles(): string[] {
  try {
    const target = readlinkSync("/proc/self/fd/2");
    if (target.startsWith("/") && !target.startsWith("/dev/")) return [target];
  } catch {
    // No /proc (not Linux): the log's destination cannot be named.
  }
  return ["<stderr>"];
}

/** Open file descriptors of this process (Linux /proc); null where the platform has no such view. */
function fdUsed(): number | null {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return null;
  }
}

function fdTotal(): number | null {
  try {
    const m = /Max open files\s+(\d+)/.exec(readFileSync("/proc/self/limits", "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Erlang's run queue counts processes ready to run that wait for a scheduler. This process's
 * nearest figure is its own threads that the kernel has ready to run (state R in
 * /proc/self/task/<tid>/stat: libuv's pool, V8's helpers), not counting the thread serving this
 * request. Null where the platform has no /proc.
 */
function runQueue(): number | null {
  try {
    let runnable = 0;
    for (const tid of readdirSync("/proc/self/task")) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      // "tid (comm) S ...": the state follows the last ')' (comm may itself hold parentheses).
      if (stat.charAt(stat.lastIndexOf(")") + 2) === "R") runnable++;
    }
    return Math.max(0, runnable - 1);
  } catch {
    return null;
  }
}

/** Categories of RabbitMQ's memory breakdown that have no counterpart in Coney (README). */
const ERLANG_ONLY_MEMORY = [
  "queue_procs", "queue_slave_procs", "quorum_queue_procs", "quorum_queue_dlx_procs", "stream_queue_procs",
  "stream_queue_replica_reader_procs", "stream_queue_coordinator_procs", "connection_readers", "connection_writers",
  "connection_channels", "connection_other", "mnesia", "msg_index", "mgmt_db", "quorum_ets", "other_ets", "plugins",
  "atom", "metrics", "reserved_unallocated",
];

/**
 * `?memory=true`: RabbitMQ's memory breakdown (the node page's "Memory details"), from what V8
 * and the OS report for this process. Queues, connections and channels live in the one JavaScript
 * heap and their message bodies in Buffers, so they are counted under "other_proc" and "binary";
 * the categories of Erlang components Coney does not have are 0 (README, "The node record").
 */
export function memoryBreakdown(): Record<string, unknown> {
  const m = process.memoryUsage();
  const code = getHeapSpaceStatistics().find((s) => s.space_name === "code_space")?.space_used_size ?? 0;
  const out: Record<string, unknown> = {};
  for (const k of ERLANG_ONLY_MEMORY) out[k] = 0;
  // Buffers and ArrayBuffers: off-heap bytes, as Erlang's binaries are.
  out["binary"] = m.arrayBuffers;
  out["code"] = code;
  out["other_proc"] = Math.max(0, m.heapUsed - code);
  // Native memory outside the JavaScript heap: external C++ objects, and what the process holds
  // beyond V8 (stacks, libuv, the runtime's own allocations).
  out["other_system"] = Math.max(0, m.external - m.arrayBuffers) + Math.max(0, m.rss - m.heapTotal - m.external);
  out["allocated_unused"] = m.heapTotal - m.heapUsed;
  out["strategy"] = "rss";
  out["total"] = { rss: m.rss, allocated: m.heapTotal + m.external, erlang: m.heapUsed + m.external };
  return out;
}

/** The HTTP listeners RabbitMQ lists as web contexts: the management UI and API, and Prometheus. */
const WEB_CONTEXTS: Readonly<Record<string, string>> = { http: "Coney Management", https: "Coney Management", "http/prometheus": "Coney Prometheus", "https/prometheus": "Coney Prometheus" };

/** Web contexts (RabbitMQ lists its HTTP listeners so); the overview adds the node to each. */
export function webContexts(ctx: RouteContext): Array<Record<string, unknown>> {
  return contextsOf(ctx.listeners().filter((l) => l.up), ctx.config.bind);
}

/**
 * The web contexts of bound `listeners` listening on `bind` ("" or "::": every interface, no `ip`
 * shown, as RabbitMQ leaves it out unless configured); a listener's own `ip` wins (another node's).
 */
export function contextsOf(listeners: ReadonlyArray<{ readonly protocol: string; readonly port: number; readonly ip?: string }>, bind: string): Array<Record<string, unknown>> {
  return listeners
    .filter((l) => WEB_CONTEXTS[l.protocol] !== undefined)
    .map((l) => {
      const ip = l.ip ?? bind;
      return {
        description: WEB_CONTEXTS[l.protocol],
        path: "/",
        port: String(l.port),
        ...(ip === "" || ip === "::" ? {} : { ip }),
        ...(l.protocol.startsWith("https") ? { ssl: true } : {}),
      };
    });
}

/** The rate sampler's key for the node's gauges (charted by `node_stats_age`). */
export const NODE_GAUGES_KEY = NODE_KEY;

/**
 * The gauges RabbitMQ's node page charts (each with a `_details` rate, and samples for the
 * chart): memory and disk as the alarms last measured them (ResourceAlarms polls them),
 * descriptors, sockets and event-loop resources read now.
 */
export function nodeGauges(broker: Broker, alarms: ResourceAlarms): Counters {
  const { memUsed, diskFree } = alarms.figures;
  // Client connections hold a socket each; a link's direct connection to this node holds none.
  let sockets = 0;
  for (const c of broker.connections.list()) if (c.direct !== true) sockets++;
  return {
    mem_used: memUsed,
    disk_free: diskFree,
    fd_used: fdUsed() ?? sockets,
    sockets_used: sockets,
    // Node has no Erlang processes. The nearest equivalent is the event loop's active resources
    // (sockets, servers, timers, pending I/O: process.getActiveResourcesInfo()); each socket or
    // file among them holds a descriptor, so the descriptor limit bounds them.
    proc_used: process.getActiveResourcesInfo().length,
  };
}

/**
 * The figures of this process in the node record: pid, uptime, memory, descriptors, sockets,
 * limits and alarms. Also what a worker of `coney --workers N` answers when another worker's
 * /api/nodes asks for it (src/workers), so each is read in its own process.
 */
export function processFigures(broker: Broker, alarms: ResourceAlarms, gauges: Counters = nodeGauges(broker, alarms)): Record<string, unknown> {
  const { memLimit, memAlarm, diskFreeLimit: diskLimit, diskAlarm } = alarms.figures;
  const total = fdTotal() ?? 1024;
  return {
    os_pid: String(process.pid),
    uptime: Math.round(process.uptime() * 1000),
    ...gauges,
    mem_limit: memLimit,
    mem_alarm: memAlarm,
    // ResourceAlarms measures the resident set size (process.memoryUsage.rss()).
    mem_calculation_strategy: "rss",
    disk_free_limit: diskLimit,
    disk_free_alarm: diskAlarm,
    fd_total: total,
    // The AMQP socket limit under the descriptor limit (ResourceAlarms.socketLimit), as RabbitMQ's.
    sockets_total: Number.isFinite(alarms.socketLimit) ? alarms.socketLimit : total,
    proc_total: total,
    run_queue: runQueue(),
    processors: availableParallelism(),
    // Its own version (Coney's, Node.js's), so another node's /api/nodes and `coneyctl
    // cluster_status` name what this process runs, as each RabbitMQ node reports its own.
    applications: applications(),
  };
}

export function nodeRecord(ctx: RouteContext, facts: NodeFacts): Record<string, unknown> {
  const gauges = nodeGauges(ctx.broker, ctx.alarms);
  return {
    name: ctx.node,
    type: "disc",
    running: true,
    being_drained: false,
    ...processFigures(ctx.broker, ctx.alarms, gauges),
    ...ctx.rates.withRates(NODE_GAUGES_KEY, gauges),
    rates_mode: "basic",
    // Coney has no Erlang distribution; the liveness tick it does run is the AMQP heartbeat it
    // proposes to clients (README, "The node record").
    net_ticktime: ctx.config.heartbeat,
    exchange_types: exchangeTypes(),
    auth_mechanisms: facts.authMechanisms,
    applications: facts.applications,
    // Built in, not plugins: the RabbitMQ plugins whose function this node serves (node-plugins.ts).
    enabled_plugins: enabledPlugins(ctx),
    contexts: webContexts(ctx),
    config_files: facts.configFiles,
    db_dir: facts.dbDir,
    log_files: logFiles(),
    partitions: [],
    cluster_links: [],
    // The churn counters RabbitMQ's node page charts, with their rates.
    ...ctx.rates.withRates(overviewKey.churn, overviewChurn(ctx.broker)),
  };
}
