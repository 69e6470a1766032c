/**
 * This node's connections, channels and consumers as the management API lists them, for a user's
 * view (RecordsUser: null = every user's), and this node's answer to the other workers' queries
 * (peer-records.ts). A list of the whole broker is this node's records plus every other worker's
 * (whole-records.ts); each record names its `node`, so the merged list says where each lives.
 */
import type { ChannelInfo, ClientConnection } from "../broker/index.js";
import { connectionConsumers } from "./detail-records.js";
import type { Item } from "./list-query.js";
import { overviewFigures, type OverviewFigures, type OverviewScope } from "./overview-scope.js";
import type { CountersWithRates } from "./rate-sampler.js";
import type { PeerQuery, RecordsUser } from "./peer-records.js";
import { overviewChurn, overviewKey } from "./rate-sources.js";
import { channelRecord, chartContext, connectionRecord, type RecordContext } from "./records.js";
import type { RouteContext } from "./route-table.js";
import { localExchangeStats } from "./whole-exchange-stats.js";
import { localQueueFigures } from "./leader-queue-figures.js";
import { localStreamRecords, type StreamRecordsKind } from "./stream-records.js";

export type RecordsKind = "connections" | "channels" | "consumers" | StreamRecordsKind;

/** /api/overview's counted figures: the totals, and the churn (what the overview sums over workers). */
export type CountedOverview = OverviewFigures & {
  readonly churn_rates: CountersWithRates;
  /** The nodes that did not answer, whose queues are counted from their last known counts (silent-leaders.ts). */
  readonly counts_stale_nodes?: readonly string[];
};

function visibleConnections(ctx: RouteContext, user: RecordsUser): ClientConnection[] {
  const all = ctx.broker.connections.list();
  return user === null ? all : all.filter((c) => c.user === user);
}

/** This node's records of `kind` the user may see, rendered with `rc`'s rates (and chart samples, when asked for). */
export function localRecords(ctx: RouteContext, kind: RecordsKind, user: RecordsUser, rc: RecordContext = ctx): Item[] {
  if (kind === "stream-connections" || kind === "stream-publishers" || kind === "stream-consumers") return localStreamRecords(ctx, kind, user, rc);
  const conns = visibleConnections(ctx, user);
  if (kind === "consumers") return connectionConsumers(conns, ctx.node);
  const infos = conns.map((c) => c.info());
  if (kind === "connections") return infos.map((i) => connectionRecord(i, rc));
  const channels: ChannelInfo[] = infos.flatMap((i) => i.channels);
  return channels.map((ch) => channelRecord(ch, rc));
}

/** Closes this node's connection `name`, or every connection of `user`: how many it closed. */
export function closeLocal(ctx: RouteContext, target: { readonly name?: string; readonly user?: string }, reason: string): number {
  const b = ctx.broker;
  const conns = target.name !== undefined ? [b.connections.get(target.name)].filter((c) => c !== undefined) : target.user !== undefined ? [...b.connections.ofUser(target.user)] : [];
  for (const conn of conns) conn.forceClose(reason);
  return conns.length;
}

/** /api/overview's counted figures of this node for a scope (queues counted by their leader only when summed). */
export function localOverview(ctx: RouteContext, scope: OverviewScope, rc: RecordContext = ctx): CountedOverview {
  return { ...overviewFigures(ctx.broker, scope, rc.rates), churn_rates: rc.rates.withRates(overviewKey.churn, overviewChurn(ctx.broker)) };
}

/** This worker's answer to another worker's query. */
export function answerPeer(ctx: RouteContext, q: PeerQuery): unknown {
  switch (q.kind) {
    case "connections":
    case "channels":
    case "consumers":
    case "stream-connections":
    case "stream-publishers":
    case "stream-consumers":
      return localRecords(ctx, q.kind, q.user, q.chart ? chartContext(ctx, q.chart) : ctx);
    case "overview": {
      const vhosts = new Set(q.vhosts);
      // Named, so the asking node knows whose queues are in the sum (silent-leaders.ts).
      // With the chart's samples when asked (the sum keeps the samples every node has: without them the overview's charts were empty).
      const scope = { monitor: q.monitor, user: q.user, hasVhost: (v: string) => vhosts.has(v), ledOnly: true };
      return { ...localOverview(ctx, scope, q.chart ? chartContext(ctx, q.chart) : ctx), node: ctx.node };
    }
    case "exchange-stats":
      return localExchangeStats(ctx, q.vhosts, q.chart ? chartContext(ctx, q.chart) : ctx);
    case "queue-figures":
      return localQueueFigures(ctx, q.vhosts, q.name, q.chart ? chartContext(ctx, q.chart) : ctx);
    case "close":
      return closeLocal(ctx, q, q.reason);
    case "metrics":
      // Answered before it reaches the API, by the node's metrics side (src/metrics/peer-metrics.ts).
      throw new Error(`${ctx.node}: its Prometheus figures are not served`);
  }
}
