/**
 * The management API's lists of the whole broker: this node's records (local-records.ts) plus, under
 * `coney --workers N`, every other worker's, gathered over the workers' IPC (peer-records.ts). The
 * merged list is then paged, sorted and filtered as one node's would be. With one process there
 * is no `peers`: the lists are this node's, with no gathering and no extra cost.
 */
import { isMonitor } from "../auth/user.js";
import type { Caller } from "./http-auth.js";
import type { Item } from "./list-query.js";
import { closeLocal, localOverview, localRecords, type CountedOverview, type RecordsKind } from "./local-records.js";
import { callerScope, sumRated } from "./overview-scope.js";
import { silentLeadersPart } from "./silent-leaders.js";
import type { ChartQuery, RecordsUser } from "./peer-records.js";
import { chartContext, chartRanges, connectionRecord } from "./records.js";
import type { RouteContext } from "./route-table.js";

/** Monitors and administrators see every connection; other users only their own. */
export const viewOf = (c: Caller): RecordsUser => (isMonitor(c.user) ? null : c.user.name);

/** The chart parameters of a request, passed on so every worker renders the same samples. */
export function chartQuery(query: Record<string, string | undefined>): ChartQuery | undefined {
  if (chartRanges(query) === null) return undefined;
  const out: Record<string, string> = {};
  for (const k in query) if (k.endsWith("_age") || k.endsWith("_incr")) out[k] = query[k]!;
  return out;
}

/** Every record of `kind` the user may see, on every worker; `query` asks for chart samples (single-record views). */
export async function wholeRecords(ctx: RouteContext, kind: RecordsKind, user: RecordsUser, query?: Record<string, string | undefined>): Promise<Item[]> {
  const own = localRecords(ctx, kind, user, query === undefined ? ctx : chartContext(ctx, query));
  const peers = ctx.peers?.records;
  if (peers === undefined) return own;
  const chart = query === undefined ? undefined : chartQuery(query);
  const answers = await peers.gather({ kind, user, ...(chart ? { chart } : {}) });
  for (const a of answers) if (Array.isArray(a)) for (const r of a) own.push(r as Item);
  return own;
}

/**
 * The consumers of queue `name` held by the other nodes' connections (a queue read's
 * `consumer_details`): a consumer lives where its channel is, not where the queue leads, so a queue
 * read on one node listed only that node's. Empty with one process.
 */
export async function otherNodesConsumersOf(ctx: RouteContext, vhost: string, name: string): Promise<Item[]> {
  const peers = ctx.peers?.records;
  if (peers === undefined) return [];
  const out: Item[] = [];
  for (const a of await peers.gather({ kind: "consumers", user: null })) {
    if (!Array.isArray(a)) continue;
    for (const c of a as Item[]) {
      const q = c["queue"] as { name?: unknown; vhost?: unknown } | undefined;
      if (q?.name === name && q.vhost === vhost) out.push(c);
    }
  }
  return out;
}

/** One connection record by name, wherever it lives (any user's: the caller's right to it is checked by the route). */
export async function findConnection(ctx: RouteContext, name: string, query: Record<string, string | undefined> = {}): Promise<Item | undefined> {
  const conn = ctx.broker.connections.get(name);
  if (conn !== undefined) return connectionRecord(conn.info(), chartContext(ctx, query));
  if (ctx.peers?.records === undefined) return undefined;
  return (await wholeRecords(ctx, "connections", null, query)).find((c) => c["name"] === name);
}

/** Closes connection `name` or every connection of `user`, here and on every other worker: how many were closed. */
export async function closeWhole(ctx: RouteContext, target: { readonly name?: string; readonly user?: string }, reason: string): Promise<number> {
  let closed = closeLocal(ctx, target, reason);
  const peers = ctx.peers?.records;
  // A connection found here is nowhere else (a name is its sockets' addresses): no need to ask.
  if (peers === undefined || (target.name !== undefined && closed > 0)) return closed;
  for (const n of await peers.gather({ kind: "close", ...target, reason })) if (typeof n === "number") closed += n;
  return closed;
}

/** /api/overview's counted figures: this node's, or under workers the sum over every worker (queues by their leader). */
export async function wholeOverview(ctx: RouteContext, caller: Caller, query: Record<string, string | undefined>): Promise<CountedOverview> {
  const rc = chartContext(ctx, query);
  const peers = ctx.peers?.records;
  const scope = callerScope(caller, peers !== undefined);
  const own = localOverview(ctx, scope, rc);
  if (peers === undefined) return own;
  const vhosts = [...ctx.broker.vhosts.keys()].filter((v) => scope.hasVhost(v));
  const chart = chartQuery(query);
  const answers = (await peers.gather({ kind: "overview", monitor: scope.monitor, user: scope.user, vhosts, ...(chart ? { chart } : {}) })) as (typeof own & { node?: string })[];
  const all = [own, ...answers.filter((a) => typeof a === "object" && a !== null)];
  const objectTotals: Record<string, number> = {};
  for (const a of all) for (const k in a.object_totals) objectTotals[k] = (objectTotals[k] ?? 0) + a.object_totals[k]!;
  // Exchanges are definitions every worker holds: counted once, from this one.
  if (own.object_totals["exchanges"] !== undefined) objectTotals["exchanges"] = own.object_totals["exchanges"];
  const queueTotals = sumRated(all.map((a) => a.queue_totals));
  // The queues of a node that did not answer: counted from their last known counts, and said so (silent-leaders.ts).
  const answered = new Set([ctx.node, ...answers.map((a) => a?.node).filter((n): n is string => typeof n === "string")]);
  const silent = silentLeadersPart(ctx.broker, scope, answered);
  if (silent !== null) {
    for (const k of ["messages", "messages_ready", "messages_unacknowledged"] as const) queueTotals[k] = ((queueTotals[k] as number | undefined) ?? 0) + silent[k];
    objectTotals["queues"] = (objectTotals["queues"] ?? 0) + silent.queues;
    if (objectTotals["consumers"] !== undefined) objectTotals["consumers"] += silent.consumers;
  }
  return {
    message_stats: sumRated(all.map((a) => a.message_stats)),
    queue_totals: queueTotals,
    churn_rates: sumRated(all.map((a) => a.churn_rates)),
    object_totals: objectTotals,
    ...(silent !== null ? { counts_stale_nodes: silent.nodes } : {}),
  };
}
