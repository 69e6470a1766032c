/**
 * Exchanges' message_stats for the whole broker under `coney --workers N`: every worker holds
 * every exchange (definitions are followed), but a message is routed by the worker its publisher
 * is connected to, so each worker counts the publishes it routed (`publish_in`, `publish_out`).
 * An exchange's figures are the sum of every worker's that answered (peer-records.ts), rates
 * summed too. With one process the records are returned as they are.
 */
import type { Exchange } from "../broker/index.js";
import type { Item } from "./list-query.js";
import { sumRated } from "./overview-scope.js";
import type { ChartQuery } from "./peer-records.js";
import type { CountersWithRates } from "./rate-sampler.js";
import { exchangeMessageStats, rateKey, type RecordContext } from "./records.js";
import type { RouteContext } from "./route-table.js";

export interface ExchangeStats {
  readonly vhost: string;
  readonly name: string;
  readonly message_stats: CountersWithRates;
}

const keyOf = (vhost: unknown, name: unknown): string => `${String(vhost)}\u0000${String(name)}`;

/** This worker's figures for the exchanges of `vhosts` that messages passed through here. */
export function localExchangeStats(ctx: RouteContext, vhosts: readonly string[], rc: RecordContext): ExchangeStats[] {
  const out: ExchangeStats[] = [];
  for (const name of vhosts) {
    const v = ctx.broker.vhosts.get(name);
    if (v === undefined) continue;
    for (const x of v.exchanges.values() as Iterable<Exchange>) {
      if (x.stats.publishIn + x.stats.publishOut === 0) continue;
      out.push({ vhost: name, name: x.name, message_stats: rc.rates.withRates(rateKey.exchangeStats(x), exchangeMessageStats(x)) });
    }
  }
  return out;
}

/** `records` (exchange records of `vhosts`) with every other worker's message_stats added in. */
export async function withWholeExchangeStats(ctx: RouteContext, records: Item[], vhosts: readonly string[], chart?: ChartQuery): Promise<Item[]> {
  const peers = ctx.peers?.records;
  if (peers === undefined) return records;
  const answers = await peers.gather({ kind: "exchange-stats", vhosts, ...(chart ? { chart } : {}) });
  const others = new Map<string, CountersWithRates[]>();
  for (const a of answers) {
    if (!Array.isArray(a)) continue;
    for (const s of a as ExchangeStats[]) {
      const k = keyOf(s.vhost, s.name);
      others.set(k, [...(others.get(k) ?? []), s.message_stats]);
    }
  }
  if (others.size === 0) return records;
  return records.map((r) => {
    const more = others.get(keyOf(r["vhost"], r["name"]));
    if (more === undefined) return r;
    const own = r["message_stats"] as CountersWithRates | undefined;
    return { ...r, message_stats: sumRated(own === undefined ? more : [own, ...more]) };
  });
}
