/**
 * `/metrics/cluster` and `/metrics/cluster/per-object`: the whole broker's figures from any one
 * node, for an operator who wants one scrape target (issue 42; docs/CLUSTERING.md, "One scrape for
 * the whole broker"). The node asks every other node for its own /metrics (or /metrics/per-object)
 * body over the seam the management API's lists use (peer-metrics.ts), bounded by its timeout, and
 * sums them with its own (cluster-sum.ts). `/metrics` itself stays per node, as RabbitMQ's.
 *
 * Which nodes are in the sum, in coney_cluster_* families of their own:
 * - coney_cluster_nodes{state="reporting"|"stale"}: how many nodes answered this scrape, and how
 *   many are known (the broker's node list, or a node that answered before) and did not;
 * - coney_cluster_node_reporting{rabbitmq_node}: 1 or 0 per node;
 * - coney_cluster_node_figures_age_seconds{rabbitmq_node}: how old the figures used for a node
 *   are (0 for one that answered; a stale node's last counters are carried, cluster-sum.ts; a node
 *   never heard from has no figures and no age).
 * A node dropped from the node list (forgotten) is dropped from the sum.
 *
 * On a single node, and on a replicated cluster's leader (its broker holds every queue and, through
 * the followers' proxies, every connection), there is no one to ask: the figures are /metrics's.
 */
import { Exposition, labelPair } from "./exposition.js";
import { parseExposition, type ParsedFamily } from "./exposition-parse.js";
import { sumExpositions, type NodeExposition } from "./cluster-sum.js";
import { writeIdentityInfo, type NodeIdentity } from "./node-families.js";
import type { ClusterFigures, PeerEndpoint } from "./peer-metrics.js";

interface Held {
  readonly families: readonly ParsedFamily[];
  readonly at: number;
}

export class ClusterScrape {
  /** The last figures each other node answered, per endpoint. */
  private readonly last: Record<PeerEndpoint, Map<string, Held>> = { aggregated: new Map(), "per-object": new Map() };

  constructor(
    private readonly self: NodeIdentity,
    private readonly figures: ClusterFigures | null,
    private readonly now: () => number = Date.now,
  ) {}

  /** The aggregate body; `own` is this node's own exposition of `endpoint` (its event-loop window kept). */
  async render(endpoint: PeerEndpoint, own: () => string): Promise<string> {
    const [answers, listed] = this.figures === null ? [[], []] : await Promise.all([this.figures.gatherMetrics(endpoint), this.figures.nodes()]);
    const held = this.last[endpoint];
    const at = this.now();
    const fresh = new Set<string>();
    for (const a of answers) {
      if (a.node === this.self.node) continue;
      let families: ParsedFamily[];
      try {
        families = parseExposition(a.text);
      } catch {
        continue; // an unreadable answer counts as none: the node is stale, never half-summed
      }
      held.set(a.node, { families, at });
      fresh.add(a.node);
    }
    // A node the list no longer names is gone for good (forgotten): its figures leave the sum. An
    // empty list (not answered in time) forgets no one.
    const known = new Set(listed);
    if (known.size > 0) for (const node of held.keys()) if (!known.has(node)) held.delete(node);
    for (const node of held.keys()) known.add(node);
    known.delete(this.self.node);

    const inputs: NodeExposition[] = [{ node: this.self.node, families: parseExposition(own()), fresh: true }];
    const ages: Array<[string, number]> = [[this.self.node, 0]];
    const others = [...known].sort();
    for (const node of others) {
      const h = held.get(node);
      if (h === undefined) continue;
      inputs.push({ node, families: h.families, fresh: fresh.has(node) });
      ages.push([node, Math.max(0, (at - h.at) / 1000)]);
    }
    const out = new Exposition();
    sumExpositions(inputs, out);
    writeIdentityInfo(out, this.self, endpoint === "aggregated" ? "cluster" : "cluster-per-object");
    const stale = others.filter((n) => !fresh.has(n));
    out.family("coney_cluster_nodes", "gauge", "Nodes of the broker in this aggregate: reporting (answered this scrape) and stale (known, did not answer in time)");
    out.sample("coney_cluster_nodes", labelPair("state", "reporting"), 1 + fresh.size);
    out.sample("coney_cluster_nodes", labelPair("state", "stale"), stale.length);
    out.family("coney_cluster_node_reporting", "gauge", "1 if the node answered this aggregate scrape, 0 if it did not (its gauges are left out, its last counters kept)");
    out.sample("coney_cluster_node_reporting", labelPair("rabbitmq_node", this.self.node), 1);
    for (const n of others) out.sample("coney_cluster_node_reporting", labelPair("rabbitmq_node", n), fresh.has(n) ? 1 : 0);
    out.family("coney_cluster_node_figures_age_seconds", "gauge", "Age of the figures of the node in this aggregate (0 when it answered; a node never heard from has none)");
    for (const [n, age] of ages) out.sample("coney_cluster_node_figures_age_seconds", labelPair("rabbitmq_node", n), age);
    return out.text();
  }
}
