/**
 * Data written by `coney --workers N` before queue groups moved between workers: each worker kept
 * its queues' messages in its own store, `<data>/nodes/w<i>/messages` (and streams in
 * `<data>/nodes/w<i>/streams`). Today that store holds only what belongs to no group (the delayed
 * exchange's hidden queues), and each queue's messages are in its group's store,
 * `<data>/groups/g<k>/` — so a worker recovering its old store would take every other record for
 * a deleted queue's. The primary migrates them once, before it forks any worker (so no other
 * process has a store open):
 *
 * - each stream's directory is moved (renamed: one step, on the same disk) into its group's
 *   streams directory, offsets and all;
 * - the old store is recovered into a throwaway broker with that worker's definitions, the group
 *   stores into another with every worker's definitions; each queue's ready messages (persistent,
 *   in order) are appended to its queue in its group's store, and only once those are fsynced are
 *   they acknowledged in the old store (store-drain.ts: queue by queue, in batches; a crash in
 *   between duplicates, never loses; a message delivered before keeps its redelivered flag);
 * - a marker, `<data>/nodes/w<i>/groups-migrated`, is written (atomically) last; a worker dir with
 *   the marker is never migrated again, and new worker dirs get it at once.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { Broker, importDefinitions, queueGroupOf, type Definitions } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import { writeFileAtomicSync } from "../store/atomic-file.js";
import { GroupedJournal } from "../store/grouped-journal.js";
import { MessageStore } from "../store/message-store.js";
import { groupMessagesDir, MESSAGES_DIR } from "../store/queue-groups-file.js";
import { recoverMessages } from "../store/store-recovery.js";
import { STREAMS_DIR, streamDirId } from "../store/stream/stream-files.js";
import { drainInto, haltDelayed, readDefinitions, withoutParameters } from "./store-drain.js";
import { workerName } from "./workers-file.js";

const MARKER = "groups-migrated";

export interface LegacyMigration {
  readonly workers: number;
  readonly messages: number;
  readonly streams: number;
}

/** Migrates every worker dir of `dataDir` written before groups moved (see above); marks the others. */
export async function migrateLegacyWorkerStores(dataDir: string, workers: number, groups: number, logger: Logger): Promise<LegacyMigration> {
  const nodesDir = join(dataDir, "nodes");
  const dirs = new Set([...(existsSync(nodesDir) ? readdirSync(nodesDir) : []), ...Array.from({ length: workers }, (_, i) => workerName(i))]);
  const legacy = [...dirs].map((d) => join(nodesDir, d)).filter((d) => !existsSync(join(d, MARKER)) && holdsData(d));
  const report = { workers: legacy.length, messages: 0, streams: 0 };
  if (legacy.length > 0) {
    const definitions = [...dirs].map((d) => readDefinitions(join(nodesDir, d))).filter((x): x is Definitions => x !== null);
    for (const dir of legacy) report.streams += moveStreams(dir, dataDir, groups, readDefinitions(dir));
    const target = openGroups(dataDir, groups, definitions, logger);
    try {
      for (const dir of legacy) report.messages += (await drainInto(dir, target.broker, logger)).moved;
    } finally {
      await Promise.all(target.stores.map((s) => s.close()));
    }
    logger.warn("messages of the workers' own stores moved into the queue groups' stores (a data dir of an earlier coney --workers)", report);
  }
  for (const d of dirs) {
    mkdirSync(join(nodesDir, d), { recursive: true });
    if (!existsSync(join(nodesDir, d, MARKER))) writeFileAtomicSync(join(nodesDir, d, MARKER), JSON.stringify({ migrated_at: new Date().toISOString() }));
  }
  return report;
}

function holdsData(dir: string): boolean {
  const messages = join(dir, MESSAGES_DIR);
  const streams = join(dir, STREAMS_DIR);
  return (existsSync(messages) && readdirSync(messages).some((f) => f.endsWith(".seg"))) || (existsSync(streams) && readdirSync(streams).length > 0);
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const f of readdirSync(dir, { withFileTypes: true })) n += f.isDirectory() ? dirBytes(join(dir, f.name)) : statSync(join(dir, f.name)).size;
  return n;
}

/** Each stream of the worker's definitions whose directory is in its old store: renamed into its group's. */
export function moveStreams(dir: string, dataDir: string, groups: number, defs: Definitions | null): number {
  let moved = 0;
  for (const q of (defs?.queues ?? []) as Array<{ vhost: string; name: string; arguments?: Record<string, unknown> }>) {
    if (q.arguments?.["x-queue-type"] !== "stream") continue;
    const id = streamDirId(q.vhost, q.name);
    const from = join(dir, STREAMS_DIR, id);
    if (!existsSync(from)) continue;
    const to = join(groupMessagesDir(dataDir, groups, queueGroupOf(q.vhost, q.name, groups)), "..", STREAMS_DIR);
    mkdirSync(to, { recursive: true });
    // Every old worker declared the stream, only its leader wrote it: the copy holding entries wins.
    const bytes = dirBytes(from);
    if (bytes === 0) continue;
    if (existsSync(join(to, id))) {
      if (dirBytes(join(to, id)) >= bytes) continue;
      rmSync(join(to, id), { recursive: true, force: true });
    }
    renameSync(from, join(to, id));
    moved++;
  }
  return moved;
}

/**
 * A broker over every group's store (recovered), placing queues by the name hash as the workers do;
 * with `nodeStoreDir`, what belongs to no group (the delayed exchanges' held messages) goes to that
 * worker's own store, as in a worker (worker-group-stores.ts). Every store is in `stores` (to close).
 */
export function openGroups(dataDir: string, groups: number, definitions: readonly Definitions[], logger: Logger, nodeStoreDir?: string): { broker: Broker; stores: MessageStore[] } {
  const stores = Array.from({ length: groups }, (_, g) => new MessageStore({ dir: groupMessagesDir(dataDir, groups, g), logger, compactEveryMs: 0 }));
  const nodeStore = nodeStoreDir === undefined ? null : new MessageStore({ dir: nodeStoreDir, logger, compactEveryMs: 0 });
  const broker = new Broker({ journal: new GroupedJournal(stores, nodeStore) });
  broker.placeQueuesWith({ leaderOf: () => null, portOf: () => null, groupOf: (vhost, name) => queueGroupOf(vhost, name, groups) });
  for (const d of definitions) importDefinitions(broker, withoutParameters(d));
  haltDelayed(broker);
  for (const s of stores) recoverMessages(s);
  if (nodeStore !== null) {
    recoverMessages(nodeStore);
    stores.push(nodeStore);
  }
  return { broker, stores };
}
