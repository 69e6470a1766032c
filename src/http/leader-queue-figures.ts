/**
 * A queue's rates as its leader sees them, for the management API of any node (issue 42,
 * "operators see one broker"; docs/CLUSTERING.md, "Rates of a queue led elsewhere").
 *
 * Every message of a queue passes its leader: publishes forwarded from other nodes are enqueued
 * there, deliveries and acks of consumers on other nodes are made and settled there. So the
 * leader's `message_stats` and the `_details` of its counts (their rates, chart samples) are the
 * queue's whole figures, as RabbitMQ's management database sums them from every node. A node that
 * does not lead a queue knows only what it published to it (RemoteQueue's stats) and samples the
 * counts it last asked for: its record showed no `message_stats` (the UI's "–" rates) or a part of
 * them. A list or a queue read through such a node asks every other node once (peer-records.ts,
 * kind `queue-figures`) for its led queues' figures, rendered on the leader with its sampler and
 * the request's chart ranges, and puts them into the records of the queues led there.
 *
 * A node that does not answer in time (the same bound as the lists') leaves this node's part,
 * and its queues' counts say they are stale already (remote-counts.ts). One process asks nobody.
 */
import type { Queue } from "../broker/index.js";
import type { ChartQuery } from "./peer-records.js";
import type { CountersWithRates } from "./rate-sampler.js";
import { hadTraffic, queueCounters, queueMessageStats, rateKey, type RecordContext } from "./records.js";
import type { RouteContext } from "./route-table.js";

export interface LeaderQueueFigures {
  readonly vhost: string;
  readonly name: string;
  /** Its counts with their `_details`, sampled on the leader. */
  readonly counts: CountersWithRates;
  /** Absent while no message has passed through it (RabbitMQ leaves the field out then). */
  readonly message_stats?: CountersWithRates;
}

/** The leaders' figures by queue (vhost, name); null when no other node was asked. */
export type LeaderFigures = ReadonlyMap<string, LeaderQueueFigures> | null;

const keyOf = (vhost: unknown, name: unknown): string => `${String(vhost)}\u0000${String(name)}`;

/** This node's answer: the figures of the queues it leads in `vhosts` (only `name`, when given). */
export function localQueueFigures(ctx: RouteContext, vhosts: readonly string[], name: string | undefined, rc: RecordContext): LeaderQueueFigures[] {
  const out: LeaderQueueFigures[] = [];
  for (const vhost of vhosts) {
    const v = ctx.broker.vhosts.get(vhost);
    if (v === undefined) continue;
    const queues = name === undefined ? v.queues.values() : [v.queues.get(name)];
    for (const q of queues) {
      if (q === undefined || q.leadsElsewhere) continue;
      const counts = rc.rates.withRates(rateKey.queue(q), queueCounters(q));
      out.push(hadTraffic(q.stats) ? { vhost, name: q.name, counts, message_stats: rc.rates.withRates(rateKey.queueStats(q), queueMessageStats(q)) } : { vhost, name: q.name, counts });
    }
  }
  return out;
}

/** The figures of the queues among `queues` that other nodes lead, asked of every other node at once. */
export async function leaderQueueFigures(ctx: RouteContext, queues: readonly Queue[], chart?: ChartQuery): Promise<LeaderFigures> {
  const peers = ctx.peers?.records;
  if (peers === undefined) return null;
  const vhosts = new Set<string>();
  for (const q of queues) if (q.leadsElsewhere) vhosts.add(q.vhost);
  if (vhosts.size === 0) return null;
  // One queue read asks for that queue alone; a list for every led queue of its vhosts.
  const name = queues.length === 1 ? queues[0]!.name : undefined;
  const answers = await peers.gather({ kind: "queue-figures", vhosts: [...vhosts], ...(name !== undefined ? { name } : {}), ...(chart ? { chart } : {}) });
  const out = new Map<string, LeaderQueueFigures>();
  for (const a of answers) if (Array.isArray(a)) for (const f of a as LeaderQueueFigures[]) out.set(keyOf(f.vhost, f.name), f);
  return out;
}

/** `r` (a queue record) with its leader's rates, when another node leads it and answered. */
export function withLeaderFigures(r: Record<string, unknown>, figures: LeaderFigures): Record<string, unknown> {
  const f = figures?.get(keyOf(r["vhost"], r["name"]));
  if (f === undefined) return r;
  for (const k in f.counts) if (k.endsWith("_details")) r[k] = f.counts[k];
  if (f.message_stats !== undefined) r["message_stats"] = f.message_stats;
  else delete r["message_stats"];
  return r;
}
