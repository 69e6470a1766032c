/**
 * cluster_status (rabbitmqctl cluster_status): the whole broker's nodes as any node sees them —
 * name, disk and running nodes, versions, maintenance, alarms, partitions, every node's listeners
 * and the feature flags — from /api/overview, /api/nodes and /api/feature-flags. Under `coney
 * --workers N` and in a spread cluster every node is listed with its own listeners and the version
 * it answered with; a replicated cluster's followers, and a spread node that does not answer, by
 * the version they registered in etcd; a worker that does not answer, by the version it told the
 * primary when it came to serve. A node that told none is left out rather than guessed.
 */
import type { CommandSpec } from "../command-spec.js";
import type { Item } from "../list-columns.js";
import { ManagementClient } from "../management-client.js";
import { purposeOf } from "./listener-purpose.js";

const path = ManagementClient.path;

interface ClusterStatus {
  readonly cluster_name: string;
  readonly disk_nodes: string[];
  readonly running_nodes: string[];
  readonly versions: Record<string, { coney_version: string; node_version: string }>;
  readonly maintenance_status: Record<string, string>;
  readonly alarms: Array<{ node: string; resource: "memory" | "disk" }>;
  readonly partitions: Record<string, string[]>;
  readonly listeners: Record<string, Array<{ interface: string; node: string; port: number; protocol: string; purpose: string }>>;
  readonly feature_flags: Array<{ name: string; state: string }>;
}

/** The version a node's record names for `app` (its `applications`, as RabbitMQ's), if it has one. */
function appVersion(node: Item, app: string): string | undefined {
  const apps = node["applications"];
  if (!Array.isArray(apps)) return undefined;
  const found = (apps as Item[]).find((a) => a["name"] === app);
  return found === undefined ? undefined : String(found["version"]);
}

export function clusterStatus(overview: Item, nodes: readonly Item[], flags: readonly Item[]): ClusterStatus {
  const names = nodes.map((n) => String(n["name"]));
  const versions: ClusterStatus["versions"] = {};
  const partitions: ClusterStatus["partitions"] = {};
  const alarms: ClusterStatus["alarms"] = [];
  for (const n of nodes) {
    const name = String(n["name"]);
    const coney = appVersion(n, "coney");
    const runtime = appVersion(n, "node");
    if (coney !== undefined && runtime !== undefined) versions[name] = { coney_version: coney, node_version: runtime };
    const cut = Array.isArray(n["partitions"]) ? (n["partitions"] as unknown[]).map(String) : [];
    if (cut.length > 0) partitions[name] = cut;
    if (n["mem_alarm"] === true) alarms.push({ node: name, resource: "memory" });
    if (n["disk_free_alarm"] === true) alarms.push({ node: name, resource: "disk" });
  }
  const listeners: ClusterStatus["listeners"] = {};
  for (const l of (overview["listeners"] ?? []) as Item[]) {
    const node = String(l["node"] ?? overview["node"]);
    const protocol = String(l["protocol"]);
    (listeners[node] ??= []).push({ interface: String(l["ip_address"]), node, port: Number(l["port"]), protocol, purpose: purposeOf(protocol) });
  }
  return {
    cluster_name: String(overview["cluster_name"]),
    disk_nodes: names,
    running_nodes: nodes.filter((n) => n["running"] === true).map((n) => String(n["name"])),
    versions,
    maintenance_status: Object.fromEntries(nodes.map((n) => [String(n["name"]), n["being_drained"] === true ? "under maintenance" : "not under maintenance"])),
    alarms,
    partitions,
    listeners,
    feature_flags: flags.map((f) => ({ name: String(f["name"]), state: String(f["state"]) })),
  };
}

/** rabbitmqctl cluster_status's sections, in its order and wording. */
export function clusterStatusText(s: ClusterStatus): string {
  const section = (title: string, lines: readonly string[]): string => `${title}\n\n${lines.length === 0 ? "(none)" : lines.join("\n")}`;
  return [
    section("Basics", [`Cluster name: ${s.cluster_name}`]),
    section("Disk Nodes", s.disk_nodes),
    section("Running Nodes", s.running_nodes),
    section("Versions", Object.entries(s.versions).map(([n, v]) => `${n}: Coney ${v.coney_version} on Node.js ${v.node_version}`)),
    section("Maintenance status", Object.entries(s.maintenance_status).map(([n, st]) => `Node: ${n}, status: ${st}`)),
    section("Alarms", s.alarms.map((a) => (a.resource === "memory" ? `Memory alarm on node ${a.node}` : `Free disk space alarm on node ${a.node}`))),
    section("Network Partitions", Object.entries(s.partitions).map(([n, cut]) => `Node ${n} cannot communicate with ${cut.join(", ")}`)),
    section("Listeners", Object.values(s.listeners).flat().map((l) => `Node: ${l.node}, interface: ${l.interface}, port: ${l.port}, protocol: ${l.protocol}, purpose: ${l.purpose}`)),
    section("Feature flags", s.feature_flags.map((f) => `Flag: ${f.name}, state: ${f.state}`)),
  ].join("\n\n");
}

export const CLUSTER_STATUS: CommandSpec = {
  name: "cluster_status",
  usage: "cluster_status",
  description: "Displays all the nodes in the cluster grouped by node type, together with the currently running nodes",
  section: "node",
  minArgs: 0,
  maxArgs: 0,
  async run({ api, out }) {
    const [overview, nodes, flags] = await Promise.all([api.get<Item>(path("overview")), api.get<Item[]>(path("nodes")), api.get<Item[]>(path("feature-flags"))]);
    const status = clusterStatus(overview, nodes, flags);
    if (out.json) {
      out.raw(JSON.stringify(status) + "\n");
      return;
    }
    out.banner(`Cluster status of node ${String(overview["node"])} ...`);
    out.raw(clusterStatusText(status) + "\n");
  },
};
