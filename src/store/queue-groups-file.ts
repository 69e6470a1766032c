/**
 * Where a node's queue groups keep their messages, and how many there are (docs/CLUSTERING.md,
 * "Per group"). G is fixed when the data dir is created and stored with it; a queue's group is
 * recorded in definitions.json, so a different G under the same data would strand messages in
 * stores no queue reads. A setting that disagrees with the data is therefore refused at boot, as
 * RabbitMQ refuses to start on data it cannot use; an absent setting takes what the data has.
 *
 * Layouts:
 * - G = 1: today's layout, one store at `<data>/messages` (and `<data>/streams`), no marker. A
 *   data dir written before queue groups existed is exactly this, and recovers unchanged.
 * - G > 1: `<data>/groups/queue_groups.json` (`{"queue_groups": G}`, written atomically before
 *   any group store is opened) and one store per group at `<data>/groups/g<i>/messages`, its
 *   streams at `<data>/groups/g<i>/streams`.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { groupLabel, MAX_QUEUE_GROUPS } from "../broker/index.js";
import { writeFileAtomicSync } from "./atomic-file.js";
import { DEFINITIONS_FILE } from "./definitions-file.js";
import { STREAMS_DIR } from "./stream/stream-files.js";

export const GROUPS_DIR = "groups";
const MARKER = "queue_groups.json";
/** The message store's directory name, in the data dir (G = 1) or in each group's (G > 1). */
export const MESSAGES_DIR = "messages";

/** The data dir's queue groups cannot be what was asked. */
export class QueueGroupsMismatch extends Error {}

/** G for `dataDir`: what it stores, else `asked` (default 1), recorded when above 1. Throws QueueGroupsMismatch. */
export function resolveQueueGroups(dataDir: string, asked: number | null): number {
  if (asked !== null && (!Number.isInteger(asked) || asked < 1 || asked > MAX_QUEUE_GROUPS)) {
    throw new QueueGroupsMismatch(`queue_groups = ${asked} is not a number of groups from 1 to ${MAX_QUEUE_GROUPS}`);
  }
  const stored = storedQueueGroups(dataDir);
  if (stored !== null) {
    if (asked !== null && asked !== stored) {
      throw new QueueGroupsMismatch(
        `the data dir ${dataDir} was created with queue_groups = ${stored}, and queue_groups = ${asked} was asked: ` +
          "each queue's messages are in its group's store, so the number of groups cannot change under existing data. " +
          `Remove the setting (the data dir's ${stored} is used) or start with a new data dir.`,
      );
    }
    return stored;
  }
  const groups = asked ?? 1;
  if (groups > 1) recordQueueGroups(dataDir, groups);
  return groups;
}

/** Records G (> 1) for `dataDir`, before any group store is opened; also how a single node's data dir taken over by the workers gets its groups (src/workers/single-node-takeover.ts). */
export function recordQueueGroups(dataDir: string, groups: number): void {
  mkdirSync(join(dataDir, GROUPS_DIR), { recursive: true });
  writeFileAtomicSync(join(dataDir, GROUPS_DIR, MARKER), JSON.stringify({ queue_groups: groups }));
}

/** What the data dir holds: its recorded G; 1 for data in today's layout; null for a new data dir. */
export function storedQueueGroups(dataDir: string): number | null {
  const marker = join(dataDir, GROUPS_DIR, MARKER);
  if (existsSync(marker)) {
    const n = (JSON.parse(readFileSync(marker, "utf8")) as { queue_groups?: unknown }).queue_groups;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > MAX_QUEUE_GROUPS) throw new QueueGroupsMismatch(`${marker} does not hold a number of queue groups (found ${JSON.stringify(n)})`);
    return n;
  }
  const singleStore = [MESSAGES_DIR, STREAMS_DIR, DEFINITIONS_FILE].some((f) => existsSync(join(dataDir, f)));
  return singleStore ? 1 : null;
}

/** The message store directory of group `group` out of `groups` (its streams beside it). */
export function groupMessagesDir(dataDir: string, groups: number, group: number): string {
  return groups === 1 ? join(dataDir, MESSAGES_DIR) : join(dataDir, GROUPS_DIR, groupLabel(group), MESSAGES_DIR);
}
