/**
 * `coney --workers N` started on the data dir of a single node (docs/CLUSTERING.md, "Upgrading a
 * single node to workers"): the primary takes the single node's data over once, before it forks
 * any worker, so no other process has a file of it open. A single node keeps everything at the top
 * of the data dir (`definitions.json`, one message store `messages/`, `streams/`, `audit/`, the
 * MQTT files); the workers keep definitions, audit and MQTT files per worker (`nodes/w<i>/`) and
 * messages per queue group (`groups/g<k>/`). What moves where:
 *
 * - definitions (vhosts, users, permissions, exchanges, bindings, queues, policies, parameters,
 *   limits: the whole file) are copied to every worker's dir, so every worker knows them;
 * - each stream's directory is renamed into its group's streams directory: entries, offsets and
 *   the stored consumer offsets (tracking.json, beside the segments) go with it;
 * - each durable queue's ready persistent messages (unacked ones are ready after a restart) are
 *   appended, in order, to the queue in its group's store, and the delayed exchanges' held
 *   messages to worker w0's own store (they belong to no group; w0 then releases them when due);
 *   only once those are fsynced are they acknowledged in the old store (store-drain.ts: queue by
 *   queue, in batches, so memory holds one batch). A message delivered before the single node's
 *   stop (unacknowledged then) keeps its delivered mark and arrives redelivered, as after the
 *   single node's own restart;
 * - the audit trail is renamed to worker w0's (`nodes/w0/audit`); the MQTT retained messages and
 *   QoS 2 states are copied to every worker (a client may land on any).
 *
 * A single node that ran with queue_groups above 1 has its `groups/` renamed aside first (its queues
 * are placed by load, the workers place by hash) and each of its stores drained the same way.
 *
 * Crash safety: `single-node-takeover.json` is written (atomically) with state "moving" before the
 * first change, and "done" after the last. While it says "moving", every start redoes every step:
 * copies and renames are idempotent, and only messages appended to a group but not yet acknowledged
 * in the old store can be moved twice (a duplicate, never a loss). Once "done", the old message
 * store and streams directory are removed (they would otherwise hold a second copy forever) and the
 * single node's definitions and MQTT files moved aside into `single-node-migrated/` (small; a record
 * of what was taken over); a crash in the middle of that is finished at the next start.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../logging/logger.js";
import { AUDIT_DIR } from "../audit/audit-log.js";
import { writeFileAtomicSync } from "../store/atomic-file.js";
import { DEFINITIONS_FILE } from "../store/definitions-file.js";
import { GROUPS_DIR, groupMessagesDir, MESSAGES_DIR, QueueGroupsMismatch, recordQueueGroups, storedQueueGroups } from "../store/queue-groups-file.js";
import { Broker, importDefinitions, type Definitions } from "../broker/index.js";
import { GroupedJournal } from "../store/grouped-journal.js";
import { MessageStore } from "../store/message-store.js";
import { recoverMessages } from "../store/store-recovery.js";
import { STREAMS_DIR } from "../store/stream/stream-files.js";
import { moveStreams, openGroups } from "./legacy-worker-stores.js";
import { drainBroker, drainInto, haltDelayed, readDefinitions, withoutParameters } from "./store-drain.js";
import { readJsonFile, REVERSE_FILE, TAKEOVER_FILE, WORKERS_FILE, workerName } from "./workers-file.js";

const MARKER = TAKEOVER_FILE;
const ASIDE = "single-node-migrated";
/** Where a single node's own queue groups wait while they are drained (setGroupedAside). */
const GROUPED_ASIDE = "single-node-groups";
/** A single node's files the workers keep per worker (mqtt-node.ts's saved files): copied to each. */
const PER_WORKER_FILES = ["mqtt-retained.json", "mqtt-qos2-state.json"];

interface Marker {
  readonly state: "moving" | "done";
  readonly queue_groups: number;
  /** The single node's own queue_groups (absent in a marker written before it could be above 1). */
  readonly single_node_groups?: number;
  readonly [field: string]: unknown;
}

export interface SingleNodeTakeover {
  readonly workers: number;
  readonly queue_groups: number;
  readonly vhosts: number;
  readonly users: number;
  readonly queues: number;
  readonly messages: number;
  readonly delayed_messages: number;
  readonly streams: number;
  readonly audit_moved: boolean;
  readonly mqtt_files: number;
  /** What else was in the data dir (not a single node's file): left where it is. */
  readonly left_in_place: readonly string[];
}

const readMarker = (dataDir: string): Marker | null => readJsonFile<Marker>(join(dataDir, MARKER));

/**
 * Whether the primary must take a single node's data over (run `takeOverSingleNode` once the
 * legacy worker stores are migrated); records the groups first when it begins. Refuses what it
 * cannot take over. `hasTable`: the data dir has a workers table (then it is the workers', whatever
 * else is at its top). A takeover found done has its leftovers removed here.
 */
export function beginTakeover(dataDir: string, hasTable: boolean, groups: number, workers: number): boolean {
  // Taken back by a single node and not finished (workers-to-single-node.ts): the groups are half drained.
  const reverse = readJsonFile<Marker>(join(dataDir, REVERSE_FILE));
  if (reverse !== null && reverse.state !== "done") {
    throw new QueueGroupsMismatch(`the data dir ${dataDir} is being taken back by a single node (${REVERSE_FILE} says it is not finished): start coney without --workers once to finish it, then with --workers.`);
  }
  const marker = readMarker(dataDir);
  if (marker?.state === "done") {
    putAside(dataDir);
    return false;
  }
  if (marker?.state === "moving") {
    setGroupedAside(dataDir, marker);
    return true;
  }
  if (hasTable || !existsSync(join(dataDir, DEFINITIONS_FILE))) return false;
  const stored = storedQueueGroups(dataDir) ?? 1;
  if (groups === 1) {
    throw new QueueGroupsMismatch(`queue_groups = 1 was asked for workers over the single node's data dir ${dataDir}: the workers spread queues over groups. Remove the setting (the default is used).`);
  }
  const begun: Marker = { state: "moving", queue_groups: groups, single_node_groups: stored, workers, started_at: new Date().toISOString() };
  writeFileAtomicSync(join(dataDir, MARKER), JSON.stringify(begun));
  setGroupedAside(dataDir, begun);
  // A single node that once took workers' data back: its record is this takeover's now.
  rmSync(join(dataDir, REVERSE_FILE), { force: true });
  return true;
}

/** The groups of a single node that ran with queue_groups above 1, as it left them: set aside before the workers' groups are recorded. */
const grouped = (dataDir: string): string => join(dataDir, GROUPED_ASIDE);

/**
 * A single node with queue_groups G0 > 1 keeps its stores where the workers keep theirs
 * (`groups/g<k>`), but placed by load, not by hash: its `groups/` is renamed aside first (one step),
 * then the workers' groups are recorded; each step is skipped when done (a start cut short redoes it).
 */
function setGroupedAside(dataDir: string, marker: Marker): void {
  if ((marker.single_node_groups ?? 1) > 1 && !existsSync(join(grouped(dataDir), GROUPS_DIR))) {
    mkdirSync(grouped(dataDir), { recursive: true });
    renameSync(join(dataDir, GROUPS_DIR), join(grouped(dataDir), GROUPS_DIR));
  }
  recordQueueGroups(dataDir, marker.queue_groups);
}

/** The single node's stores drained into `target` (its one store, or each of its G0 group stores, queues placed by their recorded group). */
async function drainSingleNode(dataDir: string, g0: number, definitions: Definitions, target: Broker, logger: Logger): Promise<{ moved: number; delayed: number }> {
  if (g0 === 1) return drainInto(dataDir, target, logger, true);
  const stores = Array.from({ length: g0 }, (_, g) => new MessageStore({ dir: groupMessagesDir(grouped(dataDir), g0, g), logger, compactEveryMs: 0 }));
  const source = new Broker({ journal: new GroupedJournal(stores) });
  importDefinitions(source, withoutParameters(definitions));
  haltDelayed(source);
  for (const st of stores) recoverMessages(st);
  try {
    return await drainBroker(source, target, true);
  } finally {
    await Promise.all(stores.map((st) => st.close()));
  }
}

/** Takes the single node's data over (see above); its state "moving" is in the marker already. */
export async function takeOverSingleNode(dataDir: string, workers: number, groups: number, logger: Logger): Promise<SingleNodeTakeover> {
  logger.info("taking over a single node's data for the workers (before any worker starts)", { data_dir: dataDir, workers, queue_groups: groups });
  const definitions = readDefinitions(dataDir);
  if (definitions === null) throw new Error(`${join(dataDir, DEFINITIONS_FILE)}: missing while ${MARKER} says the takeover is under way`);
  const w0 = join(dataDir, "nodes", workerName(0));
  for (let i = 0; i < workers; i++) {
    const dir = join(dataDir, "nodes", workerName(i));
    mkdirSync(dir, { recursive: true });
    copyAtomic(join(dataDir, DEFINITIONS_FILE), join(dir, DEFINITIONS_FILE));
    for (const f of PER_WORKER_FILES) if (existsSync(join(dataDir, f))) copyAtomic(join(dataDir, f), join(dir, f));
  }
  const g0 = readMarker(dataDir)?.single_node_groups ?? 1;
  let streams = 0;
  if (g0 === 1) streams = moveStreams(dataDir, dataDir, groups, definitions);
  else for (let g = 0; g < g0; g++) streams += moveStreams(join(groupMessagesDir(grouped(dataDir), g0, g), ".."), dataDir, groups, definitions);
  const target = openGroups(dataDir, groups, [definitions], logger, join(w0, MESSAGES_DIR));
  let drained: { moved: number; delayed: number };
  try {
    drained = await drainSingleNode(dataDir, g0, definitions, target.broker, logger);
  } finally {
    await Promise.all(target.stores.map((s) => s.close()));
  }
  const auditMoved = existsSync(join(dataDir, AUDIT_DIR)) && !existsSync(join(w0, AUDIT_DIR));
  if (auditMoved) renameSync(join(dataDir, AUDIT_DIR), join(w0, AUDIT_DIR));
  const report: SingleNodeTakeover = {
    workers,
    queue_groups: groups,
    vhosts: definitions.vhosts?.length ?? 0,
    users: definitions.users?.length ?? 0,
    queues: definitions.queues?.length ?? 0,
    messages: drained.moved,
    delayed_messages: drained.delayed,
    streams,
    audit_moved: auditMoved,
    mqtt_files: PER_WORKER_FILES.filter((f) => existsSync(join(dataDir, f))).length,
    left_in_place: untouchedEntries(dataDir),
  };
  writeFileAtomicSync(join(dataDir, MARKER), JSON.stringify({ state: "done", ...report, done_at: new Date().toISOString() }));
  putAside(dataDir);
  logger.info("a single node's data taken over by the workers: definitions copied to every worker, messages and streams moved into the queue groups", { ...report });
  return report;
}

/** After "done": the old store and streams removed, the small files moved aside (idempotent). */
function putAside(dataDir: string): void {
  rmSync(join(dataDir, MESSAGES_DIR), { recursive: true, force: true });
  rmSync(join(dataDir, STREAMS_DIR), { recursive: true, force: true });
  rmSync(grouped(dataDir), { recursive: true, force: true });
  const files = [DEFINITIONS_FILE, ...PER_WORKER_FILES].filter((f) => existsSync(join(dataDir, f)));
  if (files.length === 0) return;
  mkdirSync(join(dataDir, ASIDE), { recursive: true });
  for (const f of files) renameSync(join(dataDir, f), join(dataDir, ASIDE, f));
}

function copyAtomic(from: string, to: string): void {
  writeFileAtomicSync(to, readFileSync(from));
}

/**
 * Workers as spread-cluster nodes keep their data under `spread/w<i>` and would start empty beside
 * a single node's (or plain workers') data: refused, with what to do (the takeover is not built for them).
 */
export function refuseSpreadOverOtherData(dataDir: string): void {
  const single = existsSync(join(dataDir, DEFINITIONS_FILE)) || storedQueueGroups(dataDir) !== null;
  const workers = existsSync(join(dataDir, WORKERS_FILE));
  if (!single && !workers) return;
  throw new QueueGroupsMismatch(
    `the data dir ${dataDir} holds the data of ${workers ? "coney --workers N (not as spread-cluster nodes)" : "a single node"}: workers as spread-cluster nodes keep theirs under ${join(dataDir, "spread")} ` +
      "and do not take it over. Start them with a new --data-dir and import the definitions (GET /api/definitions, then POST /api/definitions); move messages with a shovel.",
  );
}

/** Names in the data dir the takeover leaves where they are (not a single node's file), for the operator's information. */
function untouchedEntries(dataDir: string): string[] {
  const known = new Set([MARKER, ASIDE, GROUPED_ASIDE, REVERSE_FILE, "workers-migrated", DEFINITIONS_FILE, MESSAGES_DIR, STREAMS_DIR, AUDIT_DIR, WORKERS_FILE, "nodes", "groups", "links", "spread", ...PER_WORKER_FILES]);
  return readdirSync(dataDir).filter((f) => !known.has(f));
}
