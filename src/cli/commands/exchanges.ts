/** Routing topology listings with rabbitmqctl's names, banners and columns: list_exchanges, list_bindings. */
import type { CommandSpec } from "../command-spec.js";
import { listCommand } from "../list-command.js";
import { fields, type ColumnTable } from "../list-columns.js";
import { listInVhost } from "./lookups.js";

const EXCHANGE_COLUMNS: ColumnTable = fields("name", "type", "durable", "auto_delete", "internal", "arguments", "policy");

const BINDING_COLUMNS: ColumnTable = {
  source_name: (b) => b["source"],
  source_kind: () => "exchange",
  destination_name: (b) => b["destination"],
  destination_kind: (b) => b["destination_type"],
  routing_key: (b) => b["routing_key"],
  arguments: (b) => b["arguments"],
};

const listExchanges = listCommand({
  name: "list_exchanges",
  usage: "list_exchanges [--vhost <vhost>] [--no-table-headers] [<column> ...]",
  description: "Lists exchanges",
  section: "monitoring",
  columns: EXCHANGE_COLUMNS,
  defaults: ["name", "type"],
  banner: ({ vhost }) => `Listing exchanges for vhost ${vhost} ...`,
  fetch: (ctx) => listInVhost(ctx, "exchanges"),
});

const listBindings = listCommand({
  name: "list_bindings",
  usage: "list_bindings [--vhost <vhost>] [--no-table-headers] [<column> ...]",
  description: "Lists all bindings on a vhost",
  section: "monitoring",
  columns: BINDING_COLUMNS,
  banner: ({ vhost }) => `Listing bindings for vhost ${vhost}...`,
  fetch: (ctx) => listInVhost(ctx, "bindings"),
});

export const EXCHANGE_COMMANDS: readonly CommandSpec[] = [listExchanges, listBindings];
