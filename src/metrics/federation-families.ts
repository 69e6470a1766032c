/**
 * Federation link gauges and counters (RabbitMQ 3.10's Prometheus plugin has none; these are
 * Coney's): `coney_federation_link_status{vhost,type,resource,upstream,status}` is 1 for the
 * link's current status (starting, running, error) — an alert on status="error" finds a link that
 * is down —, and `coney_federation_messages_forwarded_total` / `…_dropped_total` count what each
 * link moved downstream and what it dropped (max-hops, cycles). Nothing is written while the node
 * runs no link.
 */
import { labelPair, type Exposition } from "./exposition.js";

/** One link's figures, as the federation service reports them. */
export interface FederationLinkFigures {
  readonly vhost: string;
  readonly type: "exchange" | "queue";
  readonly resource: string;
  readonly upstream: string;
  readonly status: "starting" | "running" | "error";
  readonly forwarded: number;
  readonly dropped: number;
}

const STATUSES = ["starting", "running", "error"] as const;

export function writeFederationLinks(out: Exposition, links: readonly FederationLinkFigures[]): void {
  if (links.length === 0) return;
  const labels = (l: FederationLinkFigures): string =>
    `${labelPair("vhost", l.vhost)},${labelPair("type", l.type)},${labelPair("resource", l.resource)},${labelPair("upstream", l.upstream)}`;
  out.family("coney_federation_link_status", "gauge", "1 for the federation link's current status (starting, running, error)");
  for (const l of links) for (const s of STATUSES) out.sample("coney_federation_link_status", `${labels(l)},${labelPair("status", s)}`, l.status === s ? 1 : 0);
  out.family("coney_federation_messages_forwarded_total", "counter", "Messages the federation link republished downstream");
  for (const l of links) out.sample("coney_federation_messages_forwarded_total", labels(l), l.forwarded);
  out.family("coney_federation_messages_dropped_total", "counter", "Messages the federation link dropped (max-hops reached, or a cycle)");
  for (const l of links) out.sample("coney_federation_messages_dropped_total", labels(l), l.dropped);
}
