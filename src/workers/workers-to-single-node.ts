/**
 * `coney` (one process, no `--workers`) started on the data dir of `coney --workers N`
 * (docs/CLUSTERING.md, "Back from workers to a single node"): before the broker starts, the data
 * is taken back into a single node's layout, so an operator scaling down (or going back after
 * trying workers) loses nothing. What moves where (the reverse of single-node-takeover.ts):
 *
 * - definitions: every worker keeps the whole topology; w0's file, with anything another worker
 *   has and w0 lacks (worker-definitions-merge.ts), becomes `<data>/definitions.json`;
 * - each group's streams (`groups/g<k>/streams/<id>`) are renamed into `<data>/streams`;
 * - each group store's messages, and the delayed exchanges' held messages of every worker's own
 *   store (`nodes/w<i>/messages`), are moved queue by queue into the single store `<data>/messages`
 *   (store-drain.ts: batches fsynced before they are acknowledged in the old store; a message
 *   delivered before keeps its redelivered flag);
 * - the audit trail of w0 becomes `<data>/audit`; the other workers' trails are kept aside (below);
 * - the MQTT retained messages are w0's (the relay keeps every worker's in step); the QoS 2
 *   states of every worker are joined (a client's state is on the worker it last used).
 *
 * Crash safety: `workers-to-single-node.json` says "moving" before the first change and "done"
 * after the last; while it says "moving", every start redoes every step (idempotent; only a batch
 * appended but not yet acknowledged in its old store can be moved twice: a duplicate, never a
 * loss). Once "done", the drained group stores are removed and what is left of the workers
 * (`nodes/`, `nodes-retired/`, `workers.json`, the takeover marker) is moved aside into `workers-migrated/`, so
 * `--workers N` later takes this single node over again (a fresh takeover).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Broker, importDefinitions, type Definitions } from "../broker/index.js";
import { AUDIT_DIR } from "../audit/audit-log.js";
import type { Logger } from "../logging/logger.js";
import { writeFileAtomicSync } from "../store/atomic-file.js";
import { DEFINITIONS_FILE } from "../store/definitions-file.js";
import { MessageStore } from "../store/message-store.js";
import { GROUPS_DIR, groupMessagesDir, MESSAGES_DIR, QueueGroupsMismatch } from "../store/queue-groups-file.js";
import { recoverMessages } from "../store/store-recovery.js";
import { STREAMS_DIR } from "../store/stream/stream-files.js";
import { openGroups } from "./legacy-worker-stores.js";
import { drainBroker, drainInto, haltDelayed, readDefinitions, withoutParameters } from "./store-drain.js";
import { mergeWorkerDefinitions } from "./worker-definitions-merge.js";
import { loadTable, readJsonFile, REVERSE_FILE, TAKEOVER_FILE, WORKERS_FILE } from "./workers-file.js";

const ASIDE = "workers-migrated";
const RETAINED = "mqtt-retained.json";
const QOS2 = "mqtt-qos2-state.json";

interface Marker {
  readonly state: "moving" | "done";
  readonly queue_groups: number;
}

export interface WorkersTakenBack {
  readonly workers: number;
  readonly queue_groups: number;
  readonly queues: number;
  readonly messages: number;
  readonly delayed_messages: number;
  readonly streams: number;
  /** Definitions items found on a worker but not on w0 (0 when they agreed). */
  readonly definitions_added: number;
  readonly audit_moved: boolean;
  readonly qos2_sessions: number;
}

/** The worker dirs (`nodes/w<i>`), in worker order. */
function workerDirs(dataDir: string): string[] {
  const nodes = join(dataDir, "nodes");
  if (!existsSync(nodes)) return [];
  return readdirSync(nodes).filter((d) => /^w\d+$/.test(d)).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))).map((d) => join(nodes, d));
}

/**
 * Takes a workers data dir back into a single node's layout when `dataDir` is one (see above);
 * null when there is nothing to take back. Refuses (QueueGroupsMismatch, nothing written) what it cannot do.
 */
export async function takeBackFromWorkers(dataDir: string, askedGroups: number | null, logger: Logger): Promise<WorkersTakenBack | null> {
  let marker = readJsonFile<Marker>(join(dataDir, REVERSE_FILE));
  if (marker?.state === "done") {
    putAside(dataDir, marker.queue_groups);
    return null;
  }
  if (marker === null) {
    if (!existsSync(join(dataDir, WORKERS_FILE))) {
      // A takeover by the workers that began, with no table yet: the workers must finish it first.
      if (existsSync(join(dataDir, TAKEOVER_FILE))) refuse(dataDir, `a takeover by coney --workers N began there (${TAKEOVER_FILE}) and is not finished: start it with --workers once to finish it, then without`);
      return null;
    }
    const forward = readJsonFile<{ state: string }>(join(dataDir, TAKEOVER_FILE));
    if (forward !== null && forward.state !== "done") refuse(dataDir, `a takeover by coney --workers N is not finished there (${TAKEOVER_FILE}): start it with --workers once to finish it, then without`);
    if (askedGroups !== null && askedGroups !== 1) refuse(dataDir, `queue_groups = ${askedGroups} was asked: a single node takes the workers' data back into its default layout (one message store) only. Remove the setting`);
    const table = loadTable(dataDir)!;
    marker = { state: "moving", queue_groups: table.groups.length };
    writeFileAtomicSync(join(dataDir, REVERSE_FILE), JSON.stringify({ ...marker, started_at: new Date().toISOString() }));
  }
  const report = await moveBack(dataDir, marker.queue_groups, logger);
  writeFileAtomicSync(join(dataDir, REVERSE_FILE), JSON.stringify({ state: "done", ...report, done_at: new Date().toISOString() }));
  putAside(dataDir, marker.queue_groups);
  logger.info("the data of coney --workers taken back by a single node: definitions joined, messages and streams moved into the single store", { ...report });
  return report;
}

function refuse(dataDir: string, why: string): never {
  throw new QueueGroupsMismatch(`the data dir ${dataDir} holds the data of coney --workers N and a single node cannot take it back: ${why}.`);
}

async function moveBack(dataDir: string, groups: number, logger: Logger): Promise<WorkersTakenBack> {
  const dirs = workerDirs(dataDir);
  logger.info("taking the data of coney --workers back into a single node's layout (before the broker starts)", { data_dir: dataDir, workers: dirs.length, queue_groups: groups });
  const merged = mergeWorkerDefinitions(dirs.map(readDefinitions).filter((d): d is Definitions => d !== null));
  if (merged.added > 0) logger.warn("the workers' definitions files differed (a worker stopped mid-change?): the single node keeps everything any worker had", { added: merged.added });
  writeFileAtomicSync(join(dataDir, DEFINITIONS_FILE), JSON.stringify(merged.definitions));
  const streams = groups === 1 ? 0 : moveGroupStreams(dataDir, groups);
  const store = new MessageStore({ dir: join(dataDir, MESSAGES_DIR), logger, compactEveryMs: 0 });
  const target = new Broker({ journal: store });
  importDefinitions(target, withoutParameters(merged.definitions));
  haltDelayed(target);
  recoverMessages(store);
  const drained = { moved: 0, delayed: 0 };
  try {
    // With one group, its store is the single node's already (groupMessagesDir): nothing to move.
    if (groups > 1) {
      const source = openGroups(dataDir, groups, [merged.definitions], logger);
      try {
        drained.moved += (await drainBroker(source.broker, target, false)).moved;
      } finally {
        await Promise.all(source.stores.map((s) => s.close()));
      }
    }
    for (const dir of dirs) {
      if (!existsSync(join(dir, MESSAGES_DIR))) continue;
      const own = await drainInto(dir, target, logger, true);
      drained.moved += own.moved;
      drained.delayed += own.delayed;
    }
  } finally {
    await store.close();
  }
  const w0 = dirs[0];
  const auditMoved = w0 !== undefined && existsSync(join(w0, AUDIT_DIR)) && !existsSync(join(dataDir, AUDIT_DIR));
  if (auditMoved) renameSync(join(w0!, AUDIT_DIR), join(dataDir, AUDIT_DIR));
  if (w0 !== undefined && existsSync(join(w0, RETAINED))) writeFileAtomicSync(join(dataDir, RETAINED), readFileSync(join(w0, RETAINED)));
  const qos2 = joinQos2(dirs);
  if (qos2 !== null) writeFileAtomicSync(join(dataDir, QOS2), JSON.stringify({ version: 1, sessions: qos2 }));
  return {
    workers: dirs.length,
    queue_groups: groups,
    queues: merged.definitions.queues?.length ?? 0,
    messages: drained.moved,
    delayed_messages: drained.delayed,
    streams,
    definitions_added: merged.added,
    audit_moved: auditMoved,
    qos2_sessions: qos2 === null ? 0 : Object.keys(qos2).length,
  };
}

/** Every group's stream directories renamed into the single node's (one already there is kept: a rerun). */
function moveGroupStreams(dataDir: string, groups: number): number {
  let moved = 0;
  const to = join(dataDir, STREAMS_DIR);
  for (let g = 0; g < groups; g++) {
    const from = join(groupMessagesDir(dataDir, groups, g), "..", STREAMS_DIR);
    if (!existsSync(from)) continue;
    for (const id of readdirSync(from)) {
      if (existsSync(join(to, id))) continue;
      mkdirSync(to, { recursive: true });
      renameSync(join(from, id), join(to, id));
      moved++;
    }
  }
  return moved;
}

/** Every worker's MQTT QoS 2 sessions in one (a session on two workers: the later worker's, where the client last went is unknown); null when no worker has the file. */
function joinQos2(dirs: readonly string[]): Record<string, unknown> | null {
  let joined: Record<string, unknown> | null = null;
  for (const dir of dirs) {
    const file = readJsonFile<{ sessions?: Record<string, unknown> }>(join(dir, QOS2));
    if (file !== null) joined = Object.assign(joined ?? {}, file.sessions ?? {});
  }
  return joined;
}

/** After "done": the drained group stores removed, the workers' leftovers moved aside (idempotent). */
function putAside(dataDir: string, groups: number): void {
  if (groups > 1) rmSync(join(dataDir, GROUPS_DIR), { recursive: true, force: true });
  for (const dir of workerDirs(dataDir)) rmSync(join(dir, MESSAGES_DIR), { recursive: true, force: true });
  rmSync(join(dataDir, "links"), { recursive: true, force: true });
  const left = ["nodes", "nodes-retired", WORKERS_FILE, TAKEOVER_FILE].filter((f) => existsSync(join(dataDir, f)));
  if (left.length === 0) return;
  mkdirSync(join(dataDir, ASIDE), { recursive: true });
  for (const f of left) {
    // An earlier round's leftovers give way to this one's.
    rmSync(join(dataDir, ASIDE, f), { recursive: true, force: true });
    renameSync(join(dataDir, f), join(dataDir, ASIDE, f));
  }
}
