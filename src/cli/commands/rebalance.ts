/**
 * `rebalance_queues`, after RabbitMQ's `rabbitmq-queues rebalance all`: asks the broker to even out
 * queue leaders over its nodes (`POST /api/rebalance/queues`; under `coney --workers N` the queue
 * groups move between workers, docs/CLUSTERING.md; a single node has nothing to move), then lists
 * per node how many queues it leads after, with RabbitMQ 3.10's banner and column names
 * ("Node name", "Number of quorum queues", and Coney's count of classic queues and streams, which
 * move with their groups too).
 */
import type { CommandSpec } from "../command-spec.js";
import { badArgument } from "../command-spec.js";
import type { Item } from "../list-columns.js";
import { ManagementClient } from "../management-client.js";

const path = ManagementClient.path;
const COLUMNS = ["Node name", "Number of quorum queues", "Number of classic queues", "Number of streams"] as const;

const rebalanceQueues: CommandSpec = {
  name: "rebalance_queues",
  usage: "rebalance_queues [all]",
  description: "Re-balances leaders of queues over the broker's nodes (rabbitmq-queues rebalance all)",
  section: "queues",
  minArgs: 0,
  maxArgs: 1,
  // Queues move with their group, whatever their type: only "all" can be honoured.
  validate: (args) => (args.length === 0 || args[0] === "all" ? null : badArgument(`queue type '${args[0]}': groups move every queue type together, use 'all'`)),
  banner: () => "Re-balancing leaders of all queues...",
  async run({ api, out }) {
    api.expectOk(await api.send("POST", path("rebalance", "queues")));
    const nodes = await api.get<Item[]>(path("nodes"));
    const queues = await api.get<Item[]>(`${path("queues")}?columns=node,type,exclusive`);
    const counts = new Map<string, { quorum: number; classic: number; stream: number }>(nodes.map((n) => [String(n["name"]), { quorum: 0, classic: 0, stream: 0 }]));
    for (const q of queues) {
      // An exclusive queue stays with its connection: not a leader a rebalance moves.
      if (q["exclusive"] === true) continue;
      const c = counts.get(String(q["node"]));
      if (c === undefined) continue;
      const type = String(q["type"]);
      if (type === "quorum") c.quorum++;
      else if (type === "stream") c.stream++;
      else c.classic++;
    }
    const rows = [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([node, c]) => [node, c.quorum, c.classic, c.stream]);
    out.table(COLUMNS, rows);
  },
};

export const REBALANCE_COMMANDS: readonly CommandSpec[] = [rebalanceQueues];
