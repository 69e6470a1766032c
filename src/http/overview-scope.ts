/**
 * What /api/overview counts for whom (RabbitMQ's rabbit_mgmt_db:overview). Monitoring and
 * administrator users see the whole node. Every other user sees only the vhosts it holds a
 * permission in: their queues and exchanges, their queued messages and their message rates,
 * added up vhost by vhost, and only its own connections and channels. Consumers are counted for
 * monitors only (RabbitMQ leaves the figure out rather than filter it). Churn rates are the
 * node's for everyone, as in RabbitMQ.
 */
import { isMonitor } from "../auth/user.js";
import type { Broker, VHost } from "../broker/index.js";
import type { Caller } from "./http-auth.js";
import type { CountersWithRates, RateView } from "./rate-sampler.js";
import { overviewKey, overviewMessageStats, overviewQueueTotals } from "./rate-sources.js";
import { queueCounters, rateKey, vhostCounters, vhostMessageStats } from "./records.js";

export interface OverviewFigures {
  readonly message_stats: CountersWithRates;
  readonly queue_totals: CountersWithRates;
  readonly object_totals: Record<string, number>;
}

const QUEUE_TOTALS = ["messages", "messages_ready", "messages_unacknowledged"];

/**
 * Whose figures: a monitor sees the node's, another user its vhosts' and its own connections'.
 * `ledOnly` (a worker of `coney --workers N`, whose figures are summed with the other workers'):
 * queues, their messages and their consumers are counted only by the worker that leads the queue,
 * so the sum counts each queue once (the others hold a RemoteQueue for it).
 */
export interface OverviewScope {
  readonly monitor: boolean;
  readonly user: string;
  hasVhost(name: string): boolean;
  readonly ledOnly: boolean;
}

export function callerScope(caller: Caller, ledOnly: boolean): OverviewScope {
  return { monitor: isMonitor(caller.user), user: caller.user.name, hasVhost: (v) => caller.permissions.hasVhostAccess(v), ledOnly };
}

export function overviewFigures(b: Broker, scope: OverviewScope, rates: RateView): OverviewFigures {
  return scope.monitor ? nodeFigures(b, rates, scope.ledOnly) : userFigures(b, scope, rates);
}

function nodeFigures(b: Broker, rates: RateView, ledOnly: boolean): OverviewFigures {
  let queues = 0, consumers = 0, exchanges = 0;
  for (const v of b.vhosts.values()) {
    exchanges += v.exchanges.size;
    for (const q of v.queues.values()) {
      if (ledOnly && q.leadsElsewhere) continue;
      queues++;
      consumers += q.consumerCount;
    }
  }
  const conns = b.connections.list();
  return {
    message_stats: rates.withRates(overviewKey.messageStats, overviewMessageStats(b)),
    queue_totals: ledOnly ? ledQueueTotals(b.vhosts.values(), rates) : rates.withRates(overviewKey.queueTotals, overviewQueueTotals(b)),
    object_totals: { consumers, queues, exchanges, connections: conns.length, channels: conns.reduce((n, c) => n + c.info().channels.length, 0) },
  };
}

function userFigures(b: Broker, scope: OverviewScope, rates: RateView): OverviewFigures {
  const vhosts: VHost[] = [];
  for (const v of b.vhosts.values()) if (scope.hasVhost(v.name)) vhosts.push(v);
  let queues = 0, exchanges = 0;
  for (const v of vhosts) {
    for (const q of v.queues.values()) if (!scope.ledOnly || !q.leadsElsewhere) queues++;
    exchanges += v.exchanges.size;
  }
  let connections = 0, channels = 0;
  for (const c of b.connections.ofUser(scope.user)) {
    connections++;
    channels += c.info().channels.length;
  }
  return {
    message_stats: sumRated(vhosts.map((v) => rates.withRates(rateKey.vhostStats(v), vhostMessageStats(v)))),
    queue_totals: scope.ledOnly ? ledQueueTotals(vhosts, rates) : sumRated(vhosts.map((v) => rates.withRates(rateKey.vhost(v), vhostCounters(v))), QUEUE_TOTALS),
    object_totals: { queues, exchanges, connections, channels },
  };
}

/** The queue totals of the queues this worker leads, with their rates (each queue is sampled on its own key). */
function ledQueueTotals(vhosts: Iterable<VHost>, rates: RateView): CountersWithRates {
  const groups: CountersWithRates[] = [];
  for (const v of vhosts) for (const q of v.queues.values()) if (!q.leadsElsewhere) groups.push(rates.withRates(rateKey.queue(q), queueCounters(q)));
  return sumRated(groups, QUEUE_TOTALS);
}

type Details = { rate: number; samples?: Array<{ sample: number; timestamp: number }>; avg?: number; avg_rate?: number };

/**
 * Adds up counter groups with their `_details` (rates, and chart samples when asked for): every
 * vhost is sampled on the same ticks, so the n-th samples of each line up; a vhost younger than
 * the others has fewer, and the sum keeps the samples all of them have.
 */
export function sumRated(groups: readonly CountersWithRates[], fields?: readonly string[]): CountersWithRates {
  const out: Record<string, unknown> = {};
  const keep = (k: string): boolean => fields === undefined || fields.includes(k.endsWith("_details") ? k.slice(0, -8) : k);
  for (const g of groups) {
    for (const k in g) {
      if (!keep(k)) continue;
      const v = g[k]!;
      if (typeof v === "number") out[k] = ((out[k] as number | undefined) ?? 0) + v;
      else out[k] = addDetails(out[k] as Details | undefined, v as Details);
    }
  }
  if (groups.length === 0) {
    for (const f of fields ?? []) {
      out[f] = 0;
      out[`${f}_details`] = { rate: 0 };
    }
  }
  return out as CountersWithRates;
}

function addDetails(a: Details | undefined, b: Details): Details {
  if (a === undefined) return { ...b, ...(b.samples ? { samples: b.samples.map((p) => ({ ...p })) } : {}) };
  const out: Details = { rate: round(a.rate + b.rate) };
  if (a.samples && b.samples) {
    const n = Math.min(a.samples.length, b.samples.length);
    out.samples = a.samples.slice(0, n).map((p, i) => ({ sample: p.sample + b.samples![i]!.sample, timestamp: p.timestamp }));
  } else if (a.samples || b.samples) {
    // A group with nothing to sample (a worker leading no queue: sumRated of none) adds nothing
    // to the chart; dropping the others' samples left it empty.
    out.samples = (a.samples ?? b.samples)!.map((p) => ({ ...p }));
  }
  if (a.avg !== undefined && b.avg !== undefined) out.avg = round(a.avg + b.avg);
  if (a.avg_rate !== undefined && b.avg_rate !== undefined) out.avg_rate = round(a.avg_rate + b.avg_rate);
  return out;
}

const round = (n: number): number => Math.round(n * 10) / 10;
