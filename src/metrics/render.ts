/**
 * The three endpoints' bodies, as RabbitMQ 3.10's rabbitmq_prometheus writes them:
 * - /metrics: every core group summed over its objects (no queue/channel labels), the totals,
 *   the global counters, identity, alarms and the node's figures;
 * - /metrics/per-object: the same with one labelled series per queue, channel and connection;
 * - /metrics/detailed?family=…&vhost=…: only the named groups, per object, prefixed
 *   rabbitmq_detailed_ (rabbitmq_cluster_ for vhost_status, exchange_bindings, exchange_names),
 *   queue groups filtered to the named vhosts; plus identity.
 */
import { writeListeners } from "./listener-families.js";
import { writeFederationLinks } from "./federation-families.js";
import { writeShovels } from "./shovel-families.js";
import type { ListenerStatus } from "../listeners/listener-status.js";
import { Exposition, labelBlock, labelPair } from "./exposition.js";
import { CORE_GROUPS, type FamilySpec, type Group, type NodeRow, type ObjectGroup } from "./family-groups.js";
import { writeDeadLettered, writeGlobal, writeTotals } from "./global-families.js";
import { RuntimeMonitor, writeAlarms, writeIdentity, writeMessageSizes, writeProcessStart, type EndpointName, type NodeIdentity } from "./node-families.js";
import type { ScrapeState } from "./scrape-state.js";
import { writeClusterRole, type ClusterRole } from "./cluster-families.js";

const PREFIX = "rabbitmq_";
const DETAILED_PREFIX = "rabbitmq_detailed_";
const CLUSTER_PREFIX = "rabbitmq_cluster_";

/** `resetRuntime` false: the event-loop delay window is kept (the aggregate's reading, cluster-scrape.ts). */
export function renderAggregated(s: ScrapeState, runtime: RuntimeMonitor, resetRuntime = true): string {
  return renderAll(s, runtime, false, resetRuntime);
}

export function renderPerObject(s: ScrapeState, runtime: RuntimeMonitor, resetRuntime = true): string {
  return renderAll(s, runtime, true, resetRuntime);
}

function renderAll(s: ScrapeState, runtime: RuntimeMonitor, perObject: boolean, resetRuntime: boolean): string {
  const out = new Exposition();
  // As in RabbitMQ, whose per-object registry leaves out the process and alarm collectors.
  if (!perObject) {
    writeProcessStart(out);
    writeAlarms(out, s);
  }
  for (const g of CORE_GROUPS) {
    if (g.name === "queue_consumer_count") continue; // queue_metrics has the same family
    writeGroup(out, PREFIX, g, s, perObject, null);
  }
  writeTotals(out, s);
  writeIdentity(out, s.source, perObject ? "per-object" : "aggregated");
  if (s.source.clusterRole) writeClusterRole(out, s.source.clusterRole());
  if (s.source.listeners) writeListeners(out, s.source.listeners());
  if (s.source.federationLinks) writeFederationLinks(out, s.source.federationLinks());
  if (s.source.shovels) writeShovels(out, s.source.shovels());
  writeGlobal(out, s);
  writeDeadLettered(out, s);
  writeMessageSizes(out, s);
  runtime.write(out, resetRuntime);
  return out.text();
}

/**
 * What a cluster node that does not lead answers on every endpoint: it runs no broker, so no
 * queue, channel or connection figures (they are the leader's, and summing them over nodes must
 * count them once); its identity, role and runtime, so a scrape of every node finds each up.
 */
export function renderNodeOnly(who: NodeIdentity, role: ClusterRole, listeners: readonly ListenerStatus[], endpoint: EndpointName, runtime: RuntimeMonitor): string {
  const out = new Exposition();
  if (endpoint === "aggregated") writeProcessStart(out);
  writeIdentity(out, who, endpoint);
  writeClusterRole(out, role);
  if (endpoint !== "detailed") writeListeners(out, listeners);
  if (endpoint !== "detailed") runtime.write(out);
  return out.text();
}

/** The group names /metrics/detailed accepts (RabbitMQ ignores names it does not know, and so does Coney). */
export const DETAILED_GROUP_NAMES: readonly string[] = [...CORE_GROUPS.map((g) => g.name), "vhost_status", "exchange_bindings", "exchange_names"];

export function renderDetailed(s: ScrapeState, families: ReadonlySet<string>, vhosts: ReadonlySet<string> | null): string {
  const out = new Exposition();
  for (const g of CORE_GROUPS) {
    if (!families.has(g.name)) continue;
    if (g.name === "queue_consumer_count" && families.has("queue_metrics")) continue;
    writeGroup(out, DETAILED_PREFIX, g, s, true, vhosts);
  }
  for (const g of clusterGroups) if (families.has(g.name)) writeNodeGroup(out, CLUSTER_PREFIX, g.families, g.rows(s));
  writeIdentity(out, s.source, "detailed");
  return out.text();
}

function writeGroup(out: Exposition, prefix: string, g: Group, s: ScrapeState, perObject: boolean, vhosts: ReadonlySet<string> | null): void {
  if (g.kind === "node") writeNodeGroup(out, prefix, g.families, g.rows(s));
  else writeObjectGroup<object>(out, prefix, g, s, perObject, vhosts);
}

function writeNodeGroup(out: Exposition, prefix: string, families: readonly FamilySpec[], rows: readonly NodeRow[]): void {
  for (let j = 0; j < families.length; j++) {
    const fam = families[j]!;
    const name = prefix + fam.name;
    out.family(name, fam.type, fam.help);
    for (const row of rows) {
      const v = row.values[j]!;
      if (!Number.isNaN(v)) out.sample(name, row.labels, v);
    }
  }
}

function writeObjectGroup<T>(out: Exposition, prefix: string, g: ObjectGroup<T>, s: ScrapeState, perObject: boolean, vhosts: ReadonlySet<string> | null): void {
  const n = g.families.length;
  const scratch = new Float64Array(n);
  const filter = g.vhostFiltered ? vhosts : null;
  let objects = g.objects(s);
  if (filter !== null) objects = objects.filter((o) => filter.has(g.vhostOf(o)));
  if (!perObject) {
    // One sum per family, no labels; objects' missing values (NaN) are left out of the sum.
    const sums = new Float64Array(n);
    for (const o of objects) {
      g.values(o, scratch);
      for (let j = 0; j < n; j++) if (!Number.isNaN(scratch[j]!)) sums[j]! += scratch[j]!;
    }
    for (let j = 0; j < n; j++) {
      const fam = g.families[j]!;
      out.family(prefix + fam.name, fam.type, fam.help);
      if (fam.summed !== false) out.sample(prefix + fam.name, "", sums[j]!);
    }
    return;
  }
  // Each object's values are read once, then printed family by family (the format wants a
  // family's samples together).
  const values = new Float64Array(objects.length * n);
  const labels = new Array<string>(objects.length);
  for (let i = 0; i < objects.length; i++) {
    const o = objects[i]!;
    g.values(o, scratch);
    values.set(scratch, i * n);
    labels[i] = labelBlock(g.labels(o));
  }
  for (let j = 0; j < n; j++) {
    const fam = g.families[j]!;
    const name = prefix + fam.name;
    out.family(name, fam.type, fam.help);
    for (let i = 0; i < objects.length; i++) {
      const v = values[i * n + j]!;
      if (!Number.isNaN(v)) out.sampleInBlock(name, labels[i]!, v);
    }
  }
}

/** The detailed-only groups about definitions rather than traffic (RabbitMQ's rabbitmq_cluster_ families). */
const clusterGroups: ReadonlyArray<{ name: string; families: readonly FamilySpec[]; rows(s: ScrapeState): NodeRow[] }> = [
  {
    name: "vhost_status",
    families: [{ name: "vhost_status", type: "gauge", help: "Whether a given vhost is running" }],
    // A Coney vhost exists only while it runs.
    rows: (s) => [...s.broker.vhosts.keys()].map((v) => ({ labels: labelPair("vhost", v), values: [1] })),
  },
  {
    name: "exchange_bindings",
    families: [{ name: "exchange_bindings", type: "gauge", help: "Number of bindings for an exchange. This value is cluster-wide." }],
    rows: (s) => listedExchanges(s).map((x) => ({ labels: x.labels, values: [x.bindings] })),
  },
  {
    name: "exchange_names",
    families: [{ name: "exchange_name", type: "gauge", help: "Enumerates exchanges without any additional info. This value is cluster-wide. A cheaper alternative to `exchange_bindings`" }],
    rows: (s) => listedExchanges(s).map((x) => ({ labels: x.labels, values: [1] })),
  },
];

/** Exchanges as RabbitMQ lists them here: neither the default exchange nor internal ones. */
function listedExchanges(s: ScrapeState): Array<{ labels: string; bindings: number }> {
  const out: Array<{ labels: string; bindings: number }> = [];
  for (const v of s.broker.vhosts.values()) {
    for (const x of v.exchanges.values()) {
      if (x.name === "" || x.internal) continue;
      out.push({ labels: `${labelPair("vhost", v.name)},${labelPair("exchange", x.name)},${labelPair("type", x.type)}`, bindings: x.bindings.size });
    }
  }
  return out;
}
