/**
 * `coney --workers M` on the data dir of `coney --workers N`, M ≠ N (docs/CLUSTERING.md,
 * "Changing the number of workers"). The queue groups' stores do not depend on N (the group table
 * spreads the same G groups over this start's workers: group-table.ts's restartedTable), but each
 * worker's own dir (`nodes/w<i>`) does: its definitions file, its own store (the delayed
 * exchanges' held messages), its audit trail and MQTT files. The primary fits them before it forks
 * any worker:
 *
 * - more workers: a new worker's dir gets the definitions every worker agreed on
 *   (worker-definitions-merge.ts) and w0's retained MQTT messages, or it would serve an empty
 *   topology;
 * - fewer workers: a worker dir beyond the new count has its delayed messages moved into w0's own
 *   store (store-drain.ts: fsynced before they are acknowledged there), then the dir is moved aside
 *   to `nodes-retired/w<i>` (its audit trail kept there), so a later scale-up starts that worker from
 *   today's definitions, not the stale ones it had.
 *
 * Both are idempotent, so a crash part-way is finished by the next start: a new dir's definitions
 * are written atomically, and a retired dir is drained (a rerun finds nothing left) before it moves.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Broker, importDefinitions, type Definitions } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import { writeFileAtomicSync } from "../store/atomic-file.js";
import { DEFINITIONS_FILE } from "../store/definitions-file.js";
import { MessageStore } from "../store/message-store.js";
import { MESSAGES_DIR } from "../store/queue-groups-file.js";
import { recoverMessages } from "../store/store-recovery.js";
import { drainInto, haltDelayed, readDefinitions, withoutParameters } from "./store-drain.js";
import { mergeWorkerDefinitions } from "./worker-definitions-merge.js";
import { workerName } from "./workers-file.js";

const RETIRED = "nodes-retired";
const RETAINED = "mqtt-retained.json";

export interface WorkerCountChange {
  readonly new_workers: string[];
  readonly retired_workers: string[];
  readonly delayed_messages: number;
}

/** Fits the worker dirs of `dataDir` to `workers` (see above); null when they already fit. */
export async function fitWorkerDirs(dataDir: string, workers: number, logger: Logger): Promise<WorkerCountChange | null> {
  const nodes = join(dataDir, "nodes");
  if (!existsSync(nodes)) return null;
  const index = (d: string): number => (/^w\d+$/.test(d) ? Number(d.slice(1)) : -1);
  const present = readdirSync(nodes).filter((d) => index(d) >= 0 && existsSync(join(nodes, d, DEFINITIONS_FILE)));
  if (present.length === 0) return null; // a new data dir: every worker starts empty alike
  const kept = present.filter((d) => index(d) < workers).sort((a, b) => index(a) - index(b));
  const retired = present.filter((d) => index(d) >= workers);
  const fresh = Array.from({ length: workers }, (_, i) => workerName(i)).filter((d) => !present.includes(d));
  if (retired.length === 0 && fresh.length === 0) return null;
  const report: WorkerCountChange = { new_workers: fresh, retired_workers: retired, delayed_messages: 0 };
  logger.info("the number of workers changed: fitting the workers' own dirs before any worker starts", { data_dir: dataDir, workers, new_workers: fresh, retired_workers: retired });
  if (fresh.length > 0) {
    const all = present.map((d) => readDefinitions(join(nodes, d))).filter((x): x is Definitions => x !== null);
    const text = JSON.stringify(mergeWorkerDefinitions(all).definitions);
    const retainedFrom = [...kept, ...retired].map((d) => join(nodes, d, RETAINED)).find((f) => existsSync(f));
    for (const d of fresh) {
      mkdirSync(join(nodes, d), { recursive: true });
      if (retainedFrom !== undefined) writeFileAtomicSync(join(nodes, d, RETAINED), readFileSync(retainedFrom));
      // Last: a dir with its definitions counts as present at the next start.
      writeFileAtomicSync(join(nodes, d, DEFINITIONS_FILE), text);
    }
  }
  if (retired.length > 0) {
    const into = join(nodes, workerName(0));
    const defs = readDefinitions(into);
    const store = new MessageStore({ dir: join(into, MESSAGES_DIR), logger, compactEveryMs: 0 });
    const target = new Broker({ journal: store });
    if (defs !== null) importDefinitions(target, withoutParameters(defs));
    haltDelayed(target);
    recoverMessages(store);
    try {
      for (const d of retired) (report as { delayed_messages: number }).delayed_messages += (await drainInto(join(nodes, d), target, logger, true)).delayed;
    } finally {
      await store.close();
    }
    mkdirSync(join(dataDir, RETIRED), { recursive: true });
    for (const d of retired) {
      rmSync(join(nodes, d, MESSAGES_DIR), { recursive: true, force: true });
      rmSync(join(dataDir, RETIRED, d), { recursive: true, force: true });
      renameSync(join(nodes, d), join(dataDir, RETIRED, d));
    }
  }
  logger.info("the workers' own dirs fit the number of workers", { ...report });
  return report;
}
