/**
 * The primary of `coney --workers N` (docs/CLUSTERING.md, "One machine: `coney --workers N`"):
 * the process the user starts. It runs no broker. It forks N workers with node:cluster (each runs
 * the normal broker, worker-main.ts, on the shared ports), keeps the group table (group-keeper.ts),
 * watches the workers' heartbeats, restarts a worker that exits (with back-off), answers the
 * workers' `nodes` requests for /api/nodes, and on stop asks every worker to stop and waits.
 *
 * With `--etcd-endpoints … --cluster-mode spread` each worker is a spread-cluster node of its own
 * (spread-worker-main.ts): the primary then keeps no group table and answers no `nodes` (etcd and
 * the nodes' links do); it forks, watches and restarts, and spreads the ports (docs/CLUSTERING.md,
 * "Workers as spread-cluster nodes").
 *
 * Worker states, as the primary sees them: starting (forked, not yet serving) → running (sent
 * `ready`) → down (exited; restarted after the back-off) — or stopping (asked to stop) → down.
 */
import cluster, { type Worker } from "node:cluster";
import { join } from "node:path";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { randomBytes } from "node:crypto";
import type { ConeyConfig } from "../config/config.js";
import type { Logger } from "../logging/logger.js";
import { GroupKeeper } from "./group-keeper.js";
import { groupName, groupsOf, initialTable, restartedTable, type GroupTable } from "./group-table.js";
import { resolveQueueGroups, storedQueueGroups } from "../store/queue-groups-file.js";
import { beginTakeover, refuseSpreadOverOtherData, takeOverSingleNode } from "./single-node-takeover.js";
import { migrateLegacyWorkerStores } from "./legacy-worker-stores.js";
import { fitWorkerDirs } from "./worker-count-change.js";
import { IpcHub } from "./ipc-hub.js";
import { isEnvelope } from "./ipc-endpoint.js";
import type { PeerNode } from "../http/peer-nodes.js";
import { versionApplications } from "../http/node-record.js";
import type { NodeVersion } from "../broker/index.js";
import { workerPorts, type SharedPortKey, type WorkerPorts } from "./worker-ports.js";
import { PickedPortTaken } from "../listeners/port-picks.js";
import { loadTable, workerName } from "./workers-file.js";
import type { SpreadWorkerStart, WorkerFigures, WorkerStart } from "./worker-start.js";
import { spreadWorkerConfig, workersAsSpreadNodes } from "./spread-workers.js";
import { workerNodeName } from "./worker-node-name.js";
import type { WorkerLinks } from "./worker-queues.js";

/** Queue groups in a new data directory (the design's `queue_groups` default); a saved table keeps its own count. */
export const DEFAULT_QUEUE_GROUPS = 16;

export interface PrimaryOptions {
  readonly config: ConeyConfig;
  readonly logger: Logger;
  /** The script each worker runs (worker-main.js). */
  readonly workerEntry: string;
  readonly queueGroups?: number;
  /** A worker sends a heartbeat this often; `missedBeats` missed in a row (once running) and it is killed. */
  readonly heartbeatMs?: number;
  readonly missedBeats?: number;
  /** How long a starting worker may stay silent (recovering its stores) before it is killed. */
  readonly startupGraceMs?: number;
  /** Restart back-off: the first delay, doubled on each quick death up to the maximum. */
  readonly restartDelayMs?: { readonly first: number; readonly max: number };
  /** How long a worker may take to apply a group table, and to answer a figures request. */
  readonly tableAckMs?: number;
  readonly figuresMs?: number;
  /** How long a worker may take to stop before it is killed. */
  readonly stopTimeoutMs?: number;
  /** Replaces the pick of these port-0 shared ports (CONEY_WORKERS_FIRST_PICK, run-primary.ts). */
  readonly forcedPorts?: Partial<Record<SharedPortKey, number>>;
}

type SlotState = "starting" | "running" | "stopping" | "down";

interface Slot {
  readonly index: number;
  readonly name: string;
  worker: Worker | null;
  state: SlotState;
  lastBeat: number;
  startedAt: number;
  restarts: number;
  /** What it runs, as it said when it came to serve (`coneyctl cluster_status` while it does not answer). */
  version: NodeVersion | null;
  delayMs: number;
  restartTimer: NodeJS.Timeout | null;
  /** Resolved when this worker's process exits. */
  exited: Promise<void>;
  killed: boolean;
}

/** A worker that lived this long before dying is restarted after the first delay again. */
const STABLE_MS = 30_000;

export class Primary {
  private readonly hub = new IpcHub();
  private readonly slots: Slot[];
  private readonly heartbeatMs: number;
  private readonly links: WorkerLinks;
  private keeper: GroupKeeper | null = null;
  private ports!: WorkerPorts;
  private beatTimer: NodeJS.Timeout | null = null;
  private stopping: Promise<void> | null = null;
  private allReady!: () => void;
  private startFailed!: (err: Error) => void;
  private readonly ready = new Promise<void>((resolve, reject) => {
    this.allReady = resolve;
    this.startFailed = reject;
  });
  /** Every worker has served once: from then on a dead worker is restarted, before that the start fails. */
  private started = false;
  /** A worker found a picked port taken (before serving): the start fails with this, to be run again on fresh picks. */
  private takenPort: PickedPortTaken | null = null;
  /** Each worker a spread-cluster node (spread-workers.ts): no group table here. */
  private readonly spread: boolean;

  constructor(private readonly o: PrimaryOptions) {
    this.heartbeatMs = o.heartbeatMs ?? 1000;
    this.spread = workersAsSpreadNodes(o.config);
    // The links between workers: a fresh secret per primary (a worker of an older one cannot join).
    const linksDir = o.config.inMemory ? mkdtempSync(join(tmpdir(), "coney-links-")) : join(o.config.dataDir, "links");
    this.links = { dir: linksDir, secret: randomBytes(32).toString("hex"), nodeNames: Array.from({ length: o.config.workers }, (_, i) => workerNodeName(o.config.nodeName, i)) };
    this.slots = Array.from({ length: o.config.workers }, (_, index) => ({
      index, name: workerName(index), worker: null, state: "down", lastBeat: 0, startedAt: 0, restarts: 0, version: null,
      delayMs: o.restartDelayMs?.first ?? 100, restartTimer: null, exited: Promise.resolve(), killed: false,
    }));
    const e = this.hub.endpoint;
    e.handle("start", (_body, from) => this.startOf(from));
    e.handle("heartbeat", () => undefined);
    e.handle("ready", (body, from) => this.readied(from, body));
    e.handle("nodes", (_body, from) => this.nodes(from));
    e.handle("port-taken", (body) => {
      const { port, protocol } = body as { port: number; protocol: string };
      this.takenPort ??= new PickedPortTaken(port, protocol);
    });
    e.handle("rebalance", (body) => this.rebalance((body as { queuesPerGroup?: number[] } | null)?.queuesPerGroup ?? null));
  }

  /** The picked ports (0 replaced), for the start line. */
  get sharedPorts(): WorkerPorts {
    return this.ports;
  }

  /** Forks every worker; resolves once each one is serving. */
  async start(): Promise<void> {
    const { config } = this.o;
    this.ports = await workerPorts(config, this.slots.length, this.o.forcedPorts);
    if (this.stopping !== null) return; // stopped (a signal) while the ports were picked: fork nothing
    if (!this.spread) await this.keepGroups();
    else if (!config.inMemory) refuseSpreadOverOtherData(config.dataDir);
    cluster.setupPrimary({ exec: this.o.workerEntry, args: [] });
    for (const slot of this.slots) this.fork(slot);
    this.beatTimer = setInterval(() => this.checkBeats(), this.heartbeatMs);
    try {
      await this.ready;
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  /** `--workers N` alone: the group table, saved or new, and its keeper. */
  private async keepGroups(): Promise<void> {
    const { config } = this.o;
    const dataDir = config.inMemory ? null : config.dataDir;
    const saved = dataDir === null ? null : loadTable(dataDir);
    const all = this.slots.map((s) => s.index);
    // No table yet: the groups the data dir recorded (a start that stopped before its table was saved), else the setting or the default.
    const recorded = dataDir === null ? null : storedQueueGroups(dataDir);
    const initial = saved === null ? initialTable(this.o.queueGroups ?? (recorded !== null && recorded > 1 ? recorded : DEFAULT_QUEUE_GROUPS), all) : restartedTable(saved, all);
    // The groups' stores are under `<data>/groups/`, whose marker fixes G as for `--queue-groups`
    // (another G than the data's is refused there with both numbers).
    if (dataDir !== null) {
      // A single node's data dir is taken over (single-node-takeover.ts): its groups recorded first.
      const takeover = beginTakeover(dataDir, saved !== null, initial.groups.length, this.slots.length);
      resolveQueueGroups(dataDir, initial.groups.length);
      // Before any worker runs: the old per-worker stores' messages into their groups' (legacy-worker-stores.ts).
      await migrateLegacyWorkerStores(dataDir, this.slots.length, initial.groups.length, this.o.logger);
      if (takeover) await takeOverSingleNode(dataDir, this.slots.length, initial.groups.length, this.o.logger);
      // Another number of workers than last time: the new workers' dirs get the definitions, the retired ones' delayed messages go to w0 (worker-count-change.ts).
      else await fitWorkerDirs(dataDir, this.slots.length, this.o.logger);
    }
    this.keeper = new GroupKeeper({ initial, dataDir, endpoint: this.hub.endpoint, ackMs: this.o.tableAckMs ?? 5000, workers: this.slots.length, logger: this.o.logger, live: () => this.live(), kill: (w) => this.kill(this.slots[w]!) });
  }

  /** Asks every worker to stop, kills those that do not within the timeout; resolves when all exited. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.beatTimer) clearInterval(this.beatTimer);
      const limit = this.o.stopTimeoutMs ?? 30_000;
      await Promise.all(this.slots.map(async (slot) => {
        if (slot.restartTimer) clearTimeout(slot.restartTimer);
        slot.restartTimer = null;
        if (slot.worker === null) return;
        slot.state = "stopping";
        this.hub.endpoint.send(slot.name, "stop");
        const timer = setTimeout(() => void this.kill(slot), limit);
        await slot.exited;
        clearTimeout(timer);
      }));
      await this.keeper?.settled();
    })();
    return this.stopping;
  }

  /** The workers whose process runs (starting or running). */
  private live(): number[] {
    return this.slots.filter((s) => s.worker !== null && (s.state === "starting" || s.state === "running")).map((s) => s.index);
  }

  private slotOf(name: string): Slot | undefined {
    return this.slots.find((s) => s.name === name);
  }

  private fork(slot: Slot): void {
    const worker = cluster.fork({ CONEY_WORKER_INDEX: String(slot.index) });
    slot.worker = worker;
    slot.state = "starting";
    slot.killed = false;
    slot.startedAt = slot.lastBeat = Date.now();
    this.hub.attach(slot.name, (e) => {
      if (worker.isConnected()) worker.send(e, undefined, (err: Error | null) => err && this.o.logger.debug("IPC send to a worker failed", { worker: slot.name, err }));
    });
    worker.on("message", (m: unknown) => {
      slot.lastBeat = Date.now();
      if (isEnvelope(m) && m.from === slot.name) this.hub.route(m);
    });
    worker.on("error", (err) => this.o.logger.debug("worker IPC channel error", { worker: slot.name, err }));
    slot.exited = new Promise((resolve) => worker.once("exit", (code: number | null, signal: string | null) => {
      this.exitedWorker(slot, worker, code, signal);
      resolve();
    }));
    this.o.logger.info("worker started", { worker: slot.name, pid: worker.process.pid ?? null });
  }

  private exitedWorker(slot: Slot, worker: Worker, code: number | null, signal: string | null): void {
    if (slot.worker !== worker) return;
    const wasStopping = slot.state === "stopping" || this.stopping !== null;
    slot.worker = null;
    slot.state = "down";
    this.hub.detach(slot.name);
    if (wasStopping) {
      this.o.logger.info("worker stopped", { worker: slot.name, code, signal });
      return;
    }
    if (!this.started) {
      // A worker that cannot start (its AMQP port taken, its files unreadable) fails the whole
      // start, as a single broker's would: restarting it in a loop would only hide the reason.
      if (this.takenPort !== null) {
        this.startFailed(this.takenPort);
        return;
      }
      this.o.logger.error("worker exited before serving", { worker: slot.name, code, signal });
      this.startFailed(new Error(`worker ${slot.name} exited before serving (code ${code}, signal ${signal}); its log lines above say why`));
      return;
    }
    this.keeper?.workerGone(slot.index);
    if (Date.now() - slot.startedAt >= STABLE_MS) slot.delayMs = this.o.restartDelayMs?.first ?? 100;
    const delay = slot.delayMs;
    slot.delayMs = Math.min(delay * 2, this.o.restartDelayMs?.max ?? 10_000);
    this.o.logger.warn("worker exited; restarting it", { worker: slot.name, code, signal, killed_by_primary: slot.killed, restart_in_ms: delay });
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = null;
      if (this.stopping !== null) return;
      slot.restarts++;
      this.fork(slot);
    }, delay);
  }

  /** SIGKILL, then the exit: two processes must never lead one group, so nothing is reassigned before it. */
  private kill(slot: Slot): Promise<void> {
    const w = slot.worker;
    if (w === null) return Promise.resolve();
    slot.killed = true;
    w.process.kill("SIGKILL");
    return slot.exited;
  }

  private checkBeats(): void {
    const now = Date.now();
    for (const slot of this.slots) {
      if (slot.worker === null || slot.killed || slot.state === "stopping") continue;
      const limit = slot.state === "running" ? this.heartbeatMs * (this.o.missedBeats ?? 3) : (this.o.startupGraceMs ?? 60_000);
      if (now - slot.lastBeat <= limit) continue;
      this.o.logger.warn("worker missed its heartbeats; killing it", { worker: slot.name, silent_ms: now - slot.lastBeat, state: slot.state });
      void this.kill(slot);
    }
  }

  /** A worker asks what to run: its index, node name, configuration and ports. */
  private startOf(from: string): WorkerStart | SpreadWorkerStart {
    const slot = this.slotOf(from);
    if (slot === undefined) throw new Error(`${from} is not a worker of this primary`);
    const { config } = this.o;
    if (this.spread) {
      const own = { ...this.ports.shared, prometheusPort: this.ports.prometheus[slot.index] ?? null, workers: 1 };
      return { index: slot.index, heartbeatMs: this.heartbeatMs, ownStreamPort: this.ports.stream[slot.index] ?? null, pickedPorts: this.ports.picked, config: { ...config, ...own, ...spreadWorkerConfig(config, slot.index, this.slots.length) } };
    }
    return {
      index: slot.index,
      workers: this.slots.length,
      heartbeatMs: this.heartbeatMs,
      links: this.links,
      streamPorts: this.ports.stream,
      table: this.keeper!.current,
      groupsDataDir: config.inMemory ? null : config.dataDir,
      pickedPorts: this.ports.picked,
      config: {
        ...config,
        ...this.ports.shared,
        prometheusPort: this.ports.prometheus[slot.index] ?? null,
        nodeName: workerNodeName(config.nodeName, slot.index),
        // Each worker keeps its definitions, audit trail and own store apart; the queue groups'
        // stores (`<data>/groups/`) are opened by whichever worker leads each group (worker-group-stores.ts).
        dataDir: join(config.dataDir, "nodes", slot.name),
        workers: 1,
      },
    };
  }

  private readied(from: string, version: unknown): void {
    const slot = this.slotOf(from);
    if (slot === undefined || slot.state !== "starting") return;
    slot.state = "running";
    slot.version = isNodeVersion(version) ? version : null;
    this.o.logger.info("worker serving", { worker: slot.name, pid: slot.worker?.process.pid ?? null, restarts: slot.restarts });
    this.keeper?.workerReady(slot.index);
    if (!this.started && this.slots.every((s) => s.state === "running")) {
      this.started = true;
      this.allReady();
    }
  }

  /** `rebalance` (a worker's POST /api/rebalance/queues): the groups evened out over the running workers; answers the table after. */
  private async rebalance(queuesPerGroup: number[] | null): Promise<{ moves: number; table: GroupTable }> {
    const running = this.slots.filter((s) => s.state === "running").map((s) => s.index);
    const moves = await this.keeper!.rebalance(running, queuesPerGroup);
    return { moves: moves.length, table: this.keeper!.current };
  }

  /** /api/nodes on worker `from`: every worker, each other one's figures read in its own process. */
  private async nodes(from: string): Promise<PeerNode[]> {
    const table = this.keeper!.current;
    return Promise.all(this.slots.map(async (slot): Promise<PeerNode> => {
      const extra = { worker_index: slot.index, worker_state: slot.state, worker_restarts: slot.restarts, queue_groups: groupsOf(table, slot.index).map(groupName) };
      const name = workerNodeName(this.o.config.nodeName, slot.index);
      if (slot.name === from) return { name, running: true, record: extra, listeners: [] };
      // A worker that does not answer is named with the version it said it runs when it came to serve.
      const known = slot.version === null ? {} : { applications: versionApplications(slot.version) };
      if (slot.state !== "running") return { name, running: false, record: { ...known, ...extra }, listeners: [] };
      try {
        const figures = (await this.hub.endpoint.request(slot.name, "figures", null, this.o.figuresMs ?? 1000)) as WorkerFigures;
        return { name, running: true, record: { ...figures.record, ...extra }, listeners: figures.listeners };
      } catch {
        // No answer in time: as RabbitMQ shows a node it cannot reach.
        return { name, running: false, record: { ...known, ...extra }, listeners: [] };
      }
    }));
  }
}

function isNodeVersion(v: unknown): v is NodeVersion {
  return typeof v === "object" && v !== null && typeof (v as NodeVersion).coney === "string" && typeof (v as NodeVersion).node === "string";
}
