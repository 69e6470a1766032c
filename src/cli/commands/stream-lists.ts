/**
 * rabbitmq-streams' list commands with their names, banners and columns: list_stream_connections,
 * list_stream_publishers, list_stream_consumers (per vhost, --vhost, default "/"), read from the
 * stream management API (/api/stream/*). Coney has no Erlang pids: `conn_name` and
 * `connection_pid` show the connection's name.
 */
import type { CommandSpec } from "../command-spec.js";
import { listCommand } from "../list-command.js";
import { field, fields, nested, type ColumnTable, type Item } from "../list-columns.js";
import type { ManagementApi } from "../management-api.js";
import { ManagementClient } from "../management-client.js";
import { listAt } from "./lookups.js";

/** GET /api/stream/<what>/<vhost> (an unknown vhost is exit 65, as for the other list commands). */
const listInVhost = (ctx: { api: ManagementApi; vhost: string }, what: string): Promise<Item[]> => listAt(ctx, ManagementClient.path("stream", what, ctx.vhost));
const node = (item: Item): unknown => nested("connection_details", "node")(item) ?? item["node"];

const CONNECTION_COLUMNS: ColumnTable = {
  conn_name: field("name"),
  pid: field("name"),
  node: field("node"),
  ...fields("port", "peer_port", "host", "peer_host", "user", "vhost", "ssl", "ssl_cipher", "ssl_hash", "ssl_key_exchange", "ssl_protocol"),
  ...fields("peer_cert_issuer", "peer_cert_subject", "peer_cert_validity", "auth_mechanism", "frame_max", "client_properties", "connected_at"),
  connection_state: field("state"),
  heartbeat: field("timeout"),
};

const PUBLISHER_COLUMNS: ColumnTable = {
  connection_pid: nested("connection_details", "name"),
  node,
  publisher_id: field("publisher_id"),
  stream: nested("queue", "name"),
  reference: field("reference"),
  messages_published: field("published"),
  messages_confirmed: field("confirmed"),
  messages_errored: field("errored"),
};

const CONSUMER_COLUMNS: ColumnTable = {
  connection_pid: nested("connection_details", "name"),
  node,
  subscription_id: field("subscription_id"),
  stream: nested("queue", "name"),
  messages_consumed: field("consumed"),
  ...fields("offset", "offset_lag", "credits", "active", "activity_status", "properties"),
};

/** rabbitmq-streams' defaults: every column but connection_pid and node (publishers, consumers). */
const withoutPidAndNode = (t: ColumnTable): string[] => Object.keys(t).filter((c) => c !== "connection_pid" && c !== "node");

const listStreamConnections = listCommand({
  name: "list_stream_connections",
  usage: "list_stream_connections [--vhost <vhost>] [--no-table-headers] [<column> ...]",
  description: "Lists stream connections",
  section: "monitoring",
  columns: CONNECTION_COLUMNS,
  defaults: ["node", "conn_name"],
  banner: () => "Listing stream connections ...",
  fetch: (ctx) => listInVhost(ctx, "connections"),
});

const listStreamPublishers = listCommand({
  name: "list_stream_publishers",
  usage: "list_stream_publishers [--vhost <vhost>] [--no-table-headers] [<column> ...]",
  description: "Lists all stream publishers",
  section: "monitoring",
  columns: PUBLISHER_COLUMNS,
  defaults: withoutPidAndNode(PUBLISHER_COLUMNS),
  banner: () => "Listing stream publishers ...",
  fetch: (ctx) => listInVhost(ctx, "publishers"),
});

const listStreamConsumers = listCommand({
  name: "list_stream_consumers",
  usage: "list_stream_consumers [--vhost <vhost>] [--no-table-headers] [<column> ...]",
  description: "Lists all stream consumers for a vhost",
  section: "monitoring",
  columns: CONSUMER_COLUMNS,
  defaults: withoutPidAndNode(CONSUMER_COLUMNS),
  banner: () => "Listing stream consumers ...",
  fetch: (ctx) => listInVhost(ctx, "consumers"),
});

export const STREAM_LIST_COMMANDS: readonly CommandSpec[] = [listStreamConnections, listStreamPublishers, listStreamConsumers];
