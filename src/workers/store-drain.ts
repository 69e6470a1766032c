/**
 * Moving every stored message of one layout's stores into another's (a data dir whose layout
 * changes: legacy-worker-stores.ts, single-node-takeover.ts, workers-to-single-node.ts). The source
 * is a throwaway broker over the old stores (recovered: its messages paged, refs only), the target
 * one over the new. Each queue is moved on its own, in batches: a batch's messages are written to
 * the target queue's store, with the delivered mark a restart would have kept (so a message
 * unacknowledged at the old node's stop comes back redelivered, as after a restart of that node),
 * and only once the target has fsynced them are they acknowledged in the source. So at most one
 * batch is held in memory (BATCH_MESSAGES / BATCH_BYTES), and a crash in between duplicates a
 * batch, never loses one (the callers' markers redo the whole move).
 */
import { join } from "node:path";
import { Broker, importDefinitions, storeMovedIn, type Definitions, type Queue, type QueueEntry } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import { DefinitionsFile } from "../store/definitions-file.js";
import { MessageStore } from "../store/message-store.js";
import { MESSAGES_DIR } from "../store/queue-groups-file.js";
import { recoverMessages } from "../store/store-recovery.js";
import { existsSync } from "node:fs";

/** The most messages, and body bytes, held between two fsyncs of the target. */
const BATCH_MESSAGES = 2048;
const BATCH_BYTES = 32 * 1024 * 1024;

export interface Drained {
  moved: number;
  delayed: number;
}

export function readDefinitions(dir: string): Definitions | null {
  return existsSync(dir) ? new DefinitionsFile(dir, () => ({}) as Definitions).read() : null;
}

/**
 * The definitions a throwaway broker needs to hold messages: all but the runtime parameters, whose
 * components (shovels, federation) a bare Broker does not have (its import would fail with
 * "component … not found"); they carry no messages, and the real nodes get them with the rest.
 */
export function withoutParameters(d: Definitions): Definitions {
  const { parameters: _p, ...rest } = d;
  return rest;
}

/** Every delayed exchange's holder stopped: a throwaway broker must neither take its held messages as deliveries nor route them when due. */
export function haltDelayed(broker: Broker): void {
  for (const v of broker.vhosts.values()) for (const x of v.exchanges.values()) x.delayed?.halt();
}

/**
 * The old store of `dir` (its definitions beside it) read into a broker of its own and drained
 * into `target` (drainBroker), then closed.
 */
export async function drainInto(dir: string, target: Broker, logger: Logger, delayed = false): Promise<Drained> {
  const store = new MessageStore({ dir: join(dir, MESSAGES_DIR), logger, compactEveryMs: 0 });
  const old = new Broker({ journal: store });
  const defs = readDefinitions(dir);
  if (defs !== null) importDefinitions(old, withoutParameters(defs));
  haltDelayed(old);
  recoverMessages(store);
  try {
    return await drainBroker(old, target, delayed);
  } finally {
    await store.close();
  }
}

/**
 * Every ready message of `source`'s stored queues moved to `target`'s queue of the same vhost and
 * name (one absent there keeps its messages); with `delayed`, the delayed exchanges' held
 * messages too (into `target`'s exchange of that name), counted apart. Exclusive queues and
 * streams hold nothing stored this way.
 */
export async function drainBroker(source: Broker, target: Broker, delayed: boolean): Promise<Drained> {
  const report: Drained = { moved: 0, delayed: 0 };
  for (const v of source.vhosts.values()) {
    const into = target.vhosts.get(v.name);
    if (into === undefined) continue;
    for (const q of v.queues.values()) {
      const to = into.queues.get(q.name);
      if (q.type === "stream" || q.exclusiveOwner !== null || to === undefined) continue;
      report.moved += await moveQueue(q, to, target);
    }
    if (!delayed) continue;
    for (const x of v.exchanges.values()) {
      const to = into.exchanges.get(x.name)?.delayed;
      if (x.delayed !== null && to) report.delayed += await moveQueue(x.delayed.heldIn, to.heldIn, target);
    }
  }
  return report;
}

/** One queue's messages, in order, batch by batch (see above); returns how many were written to `to`. */
async function moveQueue(from: Queue, to: Queue, target: Broker): Promise<number> {
  let moved = 0;
  let batch: QueueEntry[] = [];
  let bytes = 0;
  const settle = async (): Promise<void> => {
    await synced(target);
    for (const e of batch) from.settle(e);
    batch = [];
    bytes = 0;
  };
  for (let e = from.get(false); e !== null; e = from.get(false)) {
    // `redelivered`: set by the source's recovery where a delivery was recorded (or its last stop was not clean).
    if (storeMovedIn(to, e.message, e.redelivered)) moved++;
    batch.push(e);
    bytes += e.message.bodySize;
    if (batch.length >= BATCH_MESSAGES || bytes >= BATCH_BYTES) await settle();
  }
  if (batch.length > 0) await settle();
  return moved;
}

function synced(target: Broker): Promise<void> {
  return new Promise<void>((resolve, reject) => target.journal!.whenSynced({ synced: (_t, ok) => (ok ? resolve() : reject(new Error("the new stores could not be written"))) }, 0));
}
