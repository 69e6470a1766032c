/**
 * Node-level commands: status (rabbitmqctl's sections, filled from /api/overview and
 * /api/nodes), cluster_status (cluster-status.ts), await_startup (waits until the management API answers) and forget_cluster_node.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { CommandSpec } from "../command-spec.js";
import { CliError, EXIT } from "../exit-codes.js";
import type { Item } from "../list-columns.js";
import type { ManagementApi } from "../management-api.js";
import { ManagementClient } from "../management-client.js";
import { purposeOf } from "./listener-purpose.js";
import { CLUSTER_STATUS } from "./cluster-status.js";

const path = ManagementClient.path;
const GB = 1024 ** 3;
const gb = (bytes: unknown): string => `${(Number(bytes) / GB).toFixed(4)} gb`;

/**
 * rabbitmqctl status is one node's: its own listeners and its own connections (the totals' queue
 * and vhost counts are the cluster's). /api/overview lists every node's listeners under `coney
 * --workers N` and in a spread cluster, and counts every node's connections: the node's are picked
 * out (`connections`: how many this node holds, read by the caller when the broker has other nodes).
 */
function statusText(overview: Item, node: Item, vhosts: number, connections: number): string {
  const nodeName = overview["node"];
  const listeners = ((overview["listeners"] ?? []) as Item[]).filter((l) => l["node"] === undefined || l["node"] === nodeName);
  const totals = (overview["object_totals"] ?? {}) as Item;
  const alarms = [...(node["mem_alarm"] ? ["memory"] : []), ...(node["disk_free_alarm"] ? ["disk space"] : [])];
  return [
    "Runtime\n",
    `OS PID: ${String(node["os_pid"])}`,
    `OS: ${process.platform === "linux" ? "Linux" : process.platform}`,
    `Uptime (seconds): ${Math.floor(Number(node["uptime"]) / 1000)}`,
    `Product name: ${String(overview["product_name"])}`,
    `Product version: ${String(overview["product_version"])}`,
    `RabbitMQ version: ${String(overview["rabbitmq_version"])}`,
    `Node name: ${String(overview["node"])}`,
    `Runtime: ${String(overview["erlang_full_version"] ?? overview["erlang_version"])}`,
    "\nAlarms\n",
    ...(alarms.length === 0 ? ["(none)"] : alarms.map((a) => `Free ${a} alarm on node ${String(overview["node"])}`)),
    "\nMemory\n",
    `Total memory used: ${gb(node["mem_used"])}`,
    `Memory high watermark setting: 0.4 of available memory, computed to: ${gb(node["mem_limit"])}`,
    "\nFree Disk Space\n",
    `Low free disk space watermark: ${gb(node["disk_free_limit"])}`,
    `Free disk space: ${gb(node["disk_free"])}`,
    "\nTotals\n",
    `Connection count: ${connections}`,
    `Queue count: ${String(totals["queues"] ?? 0)}`,
    `Virtual host count: ${vhosts}`,
    "\nListeners\n",
    ...(listeners.length === 0
      ? ["(none)"]
      : listeners.map((l) => {
          const protocol = String(l["protocol"]);
          return `Interface: ${String(l["ip_address"])}, port: ${String(l["port"])}, protocol: ${protocol}, purpose: ${purposeOf(protocol)}`;
        })),
  ].join("\n");
}

const status: CommandSpec = {
  name: "status",
  usage: "status",
  description: "Displays status of a node",
  section: "node",
  minArgs: 0,
  maxArgs: 0,
  async run({ api, out }) {
    const overview = await api.get<Item>(path("overview"));
    const nodeName = String(overview["node"]);
    const [node, vhosts, connections] = await Promise.all([api.get<Item>(path("nodes", nodeName)), api.get<Item[]>(path("vhosts")), nodeConnections(api, overview)]);
    if (out.json) {
      out.raw(JSON.stringify({ overview, node, virtual_host_count: vhosts.length, connection_count: connections }) + "\n");
      return;
    }
    out.banner(`Status of node ${nodeName} ...`);
    out.raw(statusText(overview, node, vhosts.length, connections) + "\n");
  },
};

/** How many connections the asked node holds: the overview's count on a single node, else those of /api/connections that name it. */
async function nodeConnections(api: ManagementApi, overview: Item): Promise<number> {
  const nodeName = overview["node"];
  const others = ((overview["listeners"] ?? []) as Item[]).some((l) => l["node"] !== undefined && l["node"] !== nodeName);
  if (!others) return Number(((overview["object_totals"] ?? {}) as Item)["connections"] ?? 0);
  const list = await api.get<Item[]>(`${path("connections")}?columns=node`);
  return list.filter((c) => c["node"] === nodeName).length;
}

const POLL_MS = 100;

const awaitStartup: CommandSpec = {
  name: "await_startup",
  usage: "await_startup [--timeout <seconds>]",
  description: "Waits for the broker to start (its management API to answer); default timeout 300 seconds",
  section: "node",
  minArgs: 0,
  maxArgs: 0,
  async run({ api, out, opts }) {
    const deadline = Date.now() + (opts["timeout"] === undefined ? 300 : Number(opts["timeout"])) * 1000;
    for (;;) {
      try {
        api.expectOk(await api.send("GET", path("overview")));
        out.done();
        return;
      } catch (err) {
        // Only "not reachable yet" is worth waiting out; a refusal will not change by waiting.
        const unreachable = err instanceof CliError && err.message.startsWith("Could not connect");
        // Give up only once the whole timeout has passed, as rabbitmqctl does.
        if (!unreachable || Date.now() >= deadline) throw err;
      }
      await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
    }
  },
};

/** A cluster node gone for good (DELETE /api/coney/cluster/nodes/{node}, answered by the leader). */
const forgetClusterNode: CommandSpec = {
  name: "forget_cluster_node",
  usage: "forget_cluster_node <existing_cluster_member_node>",
  description: "Removes a node that is stopped for good from the cluster (it no longer counts in min-in-sync-replicas)",
  section: "node",
  minArgs: 1,
  maxArgs: 1,
  banner: ({ args }) => `Removing node ${args[0]!} from the cluster`,
  async run({ api, out, args }) {
    const res = await api.send("DELETE", path("coney", "cluster", "nodes", args[0]!));
    if (res.status === 404) throw new CliError(EXIT.unavailable, `Node ${args[0]!} is not a member of the cluster`);
    api.expectOk(res);
    out.done();
  },
};

export const NODE_COMMANDS: readonly CommandSpec[] = [status, CLUSTER_STATUS, awaitStartup, forgetClusterNode];
