/**
 * Shovel commands with rabbitmqctl's (rabbitmq_shovel 3.10) names, banners and messages:
 * shovel_status and its list-style twin list_shovels (columns name, vhost, type, state, source,
 * destination, termination_reason, last_changed and the endpoints' queue/exchange), and
 * delete_shovel / restart_shovel [-p <vhost>] <name>, over /api/shovels.
 */
import type { CommandSpec } from "../command-spec.js";
import { CliError, EXIT } from "../exit-codes.js";
import { listCommand } from "../list-command.js";
import { field, type ColumnTable, type Item } from "../list-columns.js";
import { ManagementClient } from "../management-client.js";

const path = ManagementClient.path;
const orEmpty = (name: string) => (item: Item): unknown => item[name] ?? "";

const SHOVEL_COLUMNS: ColumnTable = {
  name: field("name"),
  vhost: field("vhost"),
  type: field("type"),
  state: field("state"),
  source_protocol: orEmpty("src_protocol"),
  source: orEmpty("src_uri"),
  destination_protocol: orEmpty("dest_protocol"),
  destination: orEmpty("dest_uri"),
  termination_reason: orEmpty("reason"),
  last_changed: field("timestamp"),
  src_queue: orEmpty("src_queue"),
  src_exchange: orEmpty("src_exchange"),
  src_exchange_key: orEmpty("src_exchange_key"),
  dest_queue: orEmpty("dest_queue"),
  dest_exchange: orEmpty("dest_exchange"),
  dest_exchange_key: orEmpty("dest_exchange_key"),
};

const DEFAULTS = ["name", "vhost", "type", "state", "source", "destination", "termination_reason", "last_changed"];

const statusCommand = (name: string, usage: string, description: string): CommandSpec =>
  listCommand({
    name,
    usage,
    description,
    section: "monitoring",
    columns: SHOVEL_COLUMNS,
    defaults: DEFAULTS,
    banner: ({ opts }) => (typeof opts["node"] === "string" ? `Shovel status on node ${opts["node"]}` : "Shovel status ..."),
    fetch: ({ api }) => api.get<Item[]>(path("shovels")),
  });

const notFound = (vhost: string): CliError => new CliError(EXIT.software, `Shovel with the given name was not found on the target node and / or virtual host '${vhost}'`);

const deleteShovel: CommandSpec = {
  name: "delete_shovel",
  usage: "delete_shovel [--vhost <vhost>] <name>",
  description: "Deletes a Shovel",
  section: "monitoring",
  minArgs: 1,
  maxArgs: 1,
  banner: ({ args, vhost }) => `Deleting shovel ${args[0]} in vhost ${vhost}`,
  async run({ api, out, args, vhost }) {
    const res = await api.send("DELETE", path("shovels", "vhost", vhost, args[0]!));
    if (res.status === 404) throw notFound(vhost);
    api.expectOk(res);
    out.done();
  },
};

const restartShovel: CommandSpec = {
  name: "restart_shovel",
  usage: "restart_shovel [--vhost <vhost>] <name>",
  description: "Restarts a dynamic Shovel",
  section: "monitoring",
  minArgs: 1,
  maxArgs: 1,
  banner: ({ args, vhost }) => `Restarting dynamic Shovel ${args[0]} in virtual host ${vhost}`,
  async run({ api, out, args, vhost }) {
    const res = await api.send("DELETE", path("shovels", "vhost", vhost, args[0]!, "restart"));
    if (res.status === 404) throw notFound(vhost);
    api.expectOk(res);
    out.done();
  },
};

export const SHOVEL_COMMANDS: readonly CommandSpec[] = [
  statusCommand("shovel_status", "shovel_status [--no-table-headers] [<column> ...]", "Displays status of Shovel on a node"),
  statusCommand("list_shovels", "list_shovels [--no-table-headers] [<column> ...]", "Lists dynamic shovels and their state (the columns of shovel_status)"),
  deleteShovel,
  restartShovel,
];
