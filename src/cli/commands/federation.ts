/**
 * Federation with rabbitmqctl's names: `federation_status [--only-down]` (and its Coney alias
 * `list_federation_links`), the links with their status, and `restart_federation_link <id>`.
 * Both read /api/federation-links (src/http/routes/federation-links.ts).
 */
import type { CommandContext, CommandSpec } from "../command-spec.js";
import { CliError, EXIT } from "../exit-codes.js";
import { listCommand } from "../list-command.js";
import type { ColumnTable, Item } from "../list-columns.js";
import { ManagementClient } from "../management-client.js";

const text = (key: string) => (l: Item): unknown => l[key] ?? "";

/** rabbitmqctl federation_status's columns: missing fields are empty, the timestamp is last_changed. */
const LINK_COLUMNS: ColumnTable = {
  type: text("type"),
  name: (l) => l["exchange"] ?? l["queue"] ?? "",
  vhost: text("vhost"),
  upstream: text("upstream"),
  exchange: text("exchange"),
  upstream_exchange: text("upstream_exchange"),
  queue: text("queue"),
  upstream_queue: text("upstream_queue"),
  status: text("status"),
  local_connection: text("local_connection"),
  uri: text("uri"),
  last_changed: text("timestamp"),
  error: text("error"),
  id: text("id"),
};

async function links(ctx: CommandContext): Promise<Item[]> {
  const all = await ctx.api.get<Item[]>(ctx.opts["onlyDown"] ? "/api/federation-links/state/down" : "/api/federation-links");
  return all;
}

const statusCommand = (name: string): CommandSpec => {
  const spec = listCommand({
    name,
    usage: `${name} [--only-down] [--no-table-headers] [<column> ...]`,
    description: "Displays federation link status",
    section: "monitoring",
    columns: LINK_COLUMNS,
    defaults: ["type", "name", "vhost", "upstream", "status", "uri", "last_changed", "error", "id"],
    banner: ({ opts }) => (opts["onlyDown"] ? "Listing federation links which are down ..." : "Listing federation links ..."),
    fetch: links,
  });
  return { ...spec, options: (cmd) => cmd.option("--only-down", "only display links that failed or are not currently connected") };
};

const restartLink: CommandSpec = {
  name: "restart_federation_link",
  usage: "restart_federation_link <link_id>",
  description: "Restarts a running federation link",
  section: "monitoring",
  minArgs: 1,
  maxArgs: 1,
  banner: ({ args }) => `Restarting federation link ${args[0]} ...`,
  async run(ctx) {
    const link = (await ctx.api.get<Item[]>("/api/federation-links")).find((l) => l["id"] === ctx.args[0]);
    if (!link) throw new CliError(EXIT.software, "Link with the given ID was not found");
    const path = ManagementClient.path("federation-links", "vhost", String(link["vhost"]), String(link["id"]), String(link["node"]), "restart");
    ctx.api.expectOk(await ctx.api.send("DELETE", path));
    ctx.out.done();
  },
};

export const FEDERATION_COMMANDS: readonly CommandSpec[] = [statusCommand("federation_status"), statusCommand("list_federation_links"), restartLink];
