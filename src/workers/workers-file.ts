/**
 * `<data>/workers.json`: the group table of `coney --workers N`, written by the primary before it
 * tells any worker of a change (so a table a worker acts on is never lost with the primary), and
 * read back at the primary's next start (epochs keep growing across restarts). Written atomically
 * (store/atomic-file.ts: temporary file, fsync, rename, directory fsync).
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "../store/atomic-file.js";
import { groupName, type GroupTable } from "./group-table.js";

export const WORKERS_FILE = "workers.json";

/** A worker's name in the table and the logs (`w0`, `w1`, …); its node name is `<name>-w<i>@<host>` (worker-node-name.ts). */
export const workerName = (i: number): string => `w${i}`;

interface SavedGroup {
  readonly group: string;
  readonly worker: string | null;
  readonly epoch: number;
}

interface SavedTable {
  readonly format: 1;
  readonly version: number;
  readonly queue_groups: number;
  readonly groups: SavedGroup[];
}

export function tableJson(table: GroupTable): SavedTable {
  return {
    format: 1,
    version: table.version,
    queue_groups: table.groups.length,
    groups: table.groups.map((s, g) => ({ group: groupName(g), worker: s.worker === null ? null : workerName(s.worker), epoch: s.epoch })),
  };
}

export function saveTable(dataDir: string, table: GroupTable): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileAtomicSync(join(dataDir, WORKERS_FILE), `${JSON.stringify(tableJson(table), null, 1)}\n`);
}

const bad = (file: string, why: string): Error => new Error(`${file}: ${why} (the group table of --workers; fix or remove it)`);

/** The saved table, or null when there is none yet. A file that does not parse is an error: its epochs must not be forgotten. */
export function loadTable(dataDir: string): GroupTable | null {
  const file = join(dataDir, WORKERS_FILE);
  if (!existsSync(file)) return null;
  let saved: Partial<SavedTable>;
  try {
    saved = JSON.parse(readFileSync(file, "utf8")) as Partial<SavedTable>;
  } catch (err) {
    throw bad(file, `not JSON: ${(err as Error).message}`);
  }
  if (saved.format !== 1 || !Number.isInteger(saved.version) || !Array.isArray(saved.groups) || saved.groups.length !== saved.queue_groups || saved.groups.length === 0) {
    throw bad(file, "not a group table of format 1");
  }
  const groups = saved.groups.map((s, g) => {
    if (s.group !== groupName(g) || !Number.isInteger(s.epoch) || s.epoch < 0) throw bad(file, `entry ${g} is not group ${groupName(g)} with an epoch`);
    if (s.worker === null) return { worker: null, epoch: s.epoch };
    const w = /^w(\d+)$/.exec(String(s.worker));
    if (w === null) throw bad(file, `entry ${g} names no worker`);
    return { worker: Number(w[1]), epoch: s.epoch };
  });
  return { version: saved.version!, groups };
}

/** The marker of a single node's data taken over by the workers (single-node-takeover.ts): "moving", then "done". */
export const TAKEOVER_FILE = "single-node-takeover.json";

/** The marker of a workers data dir taken back by a single node (workers-to-single-node.ts): "moving", then "done". */
export const REVERSE_FILE = "workers-to-single-node.json";

/** A marker or other small JSON file of the data dir, parsed; null when absent. */
export function readJsonFile<T>(file: string): T | null {
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as T) : null;
}
