/**
 * The headers and binding arguments federation writes, as RabbitMQ's plugin writes them:
 * - `x-received-from` on every forwarded message: a list of tables, newest first, one per hop
 *   (uri, exchange or queue, redelivered, the upstream's cluster-name and vhost when known).
 *   A downstream exchange drops a message that already made max-hops hops or already passed
 *   through it (rabbit_federation_util:should_forward).
 * - `x-bound-from` on the bindings an exchange link makes upstream: where the binding came from
 *   and how many hops it may still travel, so a chain A→B→C carries C's bindings up to A only
 *   while hops remain.
 * - queue federation's visit-count and x-original-exchange / x-original-routing-key.
 */
import { Decimal, type FieldTable, type FieldValue } from "../broker/values/field-value.js";

export const ROUTING_HEADER = "x-received-from";
export const BINDING_HEADER = "x-bound-from";

function tableList(v: FieldValue | undefined): FieldTable[] | null {
  if (!Array.isArray(v)) return null;
  return v.filter((e): e is FieldTable => e !== null && typeof e === "object" && !Array.isArray(e) && !Buffer.isBuffer(e) && !(e instanceof Date) && !(e instanceof Decimal));
}

/** Whether `list` has a hop through (cluster, vhost): the cycle check. */
export function alreadySeen(list: readonly FieldTable[], cluster: string, vhost: string): boolean {
  return list.some((t) => t["cluster-name"] === cluster && t["vhost"] === vhost);
}

/** rabbit_federation_util:should_forward: fewer hops than max-hops, and never through here before. */
export function shouldForward(headers: FieldTable | undefined, maxHops: number, cluster: string, vhost: string): boolean {
  const raw = headers?.[ROUTING_HEADER];
  if (!Array.isArray(raw)) return true;
  return raw.length < maxHops && !alreadySeen(tableList(raw) ?? [], cluster, vhost);
}

/** Prepends one hop's table to a header list (rabbit_basic:prepend_table_header). */
function prepend(headers: FieldTable, key: string, entry: FieldTable): FieldTable {
  const before = headers[key];
  return { ...headers, [key]: [entry, ...(Array.isArray(before) ? before : [])] };
}

export interface HopInfo {
  /** The upstream URI without credentials. */
  readonly uri: string;
  /** The upstream's cluster name, when its server announced one. */
  readonly clusterName: string | null;
  readonly vhost: string;
}

/** The headers of a message an exchange link republishes downstream. */
export function exchangeHopHeaders(headers: FieldTable | undefined, hop: HopInfo, exchange: string, redelivered: boolean): FieldTable {
  const entry: FieldTable = { uri: hop.uri, exchange, redelivered };
  if (hop.clusterName !== null) entry["cluster-name"] = hop.clusterName;
  entry["vhost"] = hop.vhost;
  return prepend(headers ?? {}, ROUTING_HEADER, entry);
}

/**
 * The headers of a message a queue link moves downstream (rabbit_federation_queue_link): the
 * first move records the original exchange and routing key; a message that comes back through
 * the same upstream counts its visits; a CC header is renamed so it does not route again.
 */
export function queueHopHeaders(headers: FieldTable | undefined, uri: string, queue: string, redelivered: boolean, exchange: string, routingKey: string): FieldTable {
  const h: FieldTable = { ...(headers ?? {}) };
  let visits = 0;
  const been = tableList(h[ROUTING_HEADER]);
  if (been === null) {
    h["x-original-exchange"] = exchange;
    h["x-original-routing-key"] = routingKey;
  } else {
    const same = been.find((t) => t["uri"] === uri && t["queue"] === queue);
    if (same !== undefined && typeof same["visit-count"] === "number") visits = same["visit-count"];
    h[ROUTING_HEADER] = been.filter((t) => t !== same);
  }
  if (h[ROUTING_HEADER] !== undefined && !Array.isArray(h[ROUTING_HEADER])) delete h[ROUTING_HEADER];
  if ("CC" in h) {
    h["x-original-cc"] = h["CC"]!;
    delete h["CC"];
  }
  return prepend(h, ROUTING_HEADER, { uri, queue, redelivered, "visit-count": visits + 1 });
}

export interface BindingOrigin {
  /** This broker's cluster name and the downstream exchange's vhost and name. */
  readonly cluster: string;
  readonly vhost: string;
  readonly exchange: string;
  /** The internal exchange's suffix upstream (A or B), part of the binding's identity. */
  readonly suffix: string;
  readonly maxHops: number;
  /** The upstream's cluster name and vhost, for the binding cycle check. */
  readonly upstreamCluster: string | null;
  readonly upstreamVhost: string;
}

/**
 * The arguments of the binding an exchange link makes upstream for a downstream binding, or null
 * when it must not travel further (no hops left, or it came from that upstream in the first
 * place). rabbit_federation_exchange_link:update_binding.
 */
export function upstreamBindingArgs(args: FieldTable, o: BindingOrigin): FieldTable | null {
  const list = tableList(args[BINDING_HEADER]);
  let hops = o.maxHops;
  if (list !== null && list.length > 0) {
    const prevHops = hopsOf(list[0]!);
    hops = o.upstreamCluster !== null && alreadySeen(list, o.upstreamCluster, o.upstreamVhost) ? 0 : Math.min(prevHops - 1, o.maxHops);
  }
  if (hops <= 0) return null;
  const entry: FieldTable = { "cluster-name": o.cluster, vhost: o.vhost, exchange: `${o.vhost}:${o.exchange} ${o.suffix}`, hops };
  return prepend(args, BINDING_HEADER, entry);
}

function hopsOf(t: FieldTable): number {
  const h = t["hops"];
  return typeof h === "number" ? h : typeof h === "bigint" ? Number(h) : 0;
}

/** True for a binding that federation itself made (a downstream link's binding on this exchange). */
export function isFederatedBinding(args: FieldTable): boolean {
  return Array.isArray(args[BINDING_HEADER]);
}
