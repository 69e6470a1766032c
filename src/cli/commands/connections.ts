/**
 * Client activity with rabbitmqctl's names, banners and columns: list_connections (every
 * protocol's), list_mqtt_connections, list_channels, list_consumers, close_connection. Coney has no Erlang pids: the `pid` columns
 * show the connection's or channel's name, which is what close_connection takes.
 */
import type { CommandSpec } from "../command-spec.js";
import { CliError, EXIT } from "../exit-codes.js";
import { listCommand } from "../list-command.js";
import { field, fields, nested, type ColumnTable, type Item } from "../list-columns.js";
import { ManagementClient } from "../management-client.js";
import { listInVhost } from "./lookups.js";

const path = ManagementClient.path;

const CONNECTION_COLUMNS: ColumnTable = {
  pid: field("name"),
  ...fields("name", "port", "host", "peer_port", "peer_host", "ssl", "state", "channels", "protocol", "auth_mechanism", "user", "vhost", "node"),
  ...fields("timeout", "frame_max", "channel_max", "client_properties", "recv_oct", "recv_cnt", "send_oct", "send_cnt", "connected_at"),
};

const CHANNEL_COLUMNS: ColumnTable = {
  pid: field("name"),
  connection: nested("connection_details", "name"),
  ...fields("name", "number", "user", "vhost", "transactional", "confirm", "consumer_count", "messages_unacknowledged", "node"),
  ...fields("messages_uncommitted", "acks_uncommitted", "messages_unconfirmed", "prefetch_count", "global_prefetch_count"),
};

const CONSUMER_COLUMNS: ColumnTable = {
  queue_name: nested("queue", "name"),
  channel_pid: nested("channel_details", "name"),
  ...fields("consumer_tag", "ack_required", "prefetch_count", "active", "activity_status", "arguments"),
};

const listConnections = listCommand({
  name: "list_connections",
  usage: "list_connections [--no-table-headers] [<column> ...]",
  description: "Lists AMQP 0.9.1 connections for the node",
  section: "monitoring",
  columns: CONNECTION_COLUMNS,
  defaults: ["user", "peer_host", "peer_port", "state"],
  banner: () => "Listing connections ...",
  fetch: ({ api }) => api.get<Item[]>(path("connections")),
});

/**
 * rabbitmqctl's list_mqtt_connections (the MQTT plugin's command): MQTT connections over TCP, TLS
 * and WebSocket, default columns client_id and conn_name. The columns are those of RabbitMQ's
 * list that the API's connection record holds; the session internals RabbitMQ also offers
 * (clean_sess, will_msg, prefetch, …) are not in it and are refused as unknown.
 */
const MQTT_CONNECTION_COLUMNS: ColumnTable = {
  pid: field("name"),
  ...fields("protocol", "host", "port", "peer_host", "peer_port", "ssl", "vhost", "user", "recv_cnt", "recv_oct", "send_cnt", "send_oct"),
  client_id: nested("client_properties", "client_id"),
  conn_name: field("name"),
  connection_state: field("state"),
};

const isMqtt = (item: Item): boolean => /^(Web )?MQTT /.test(String(item["protocol"]));

const listMqttConnections = listCommand({
  name: "list_mqtt_connections",
  usage: "list_mqtt_connections [--no-table-headers] [<column> ...]",
  description: "Lists all MQTT connections",
  section: "monitoring",
  columns: MQTT_CONNECTION_COLUMNS,
  defaults: ["client_id", "conn_name"],
  banner: () => "Listing MQTT connections ...",
  fetch: async ({ api }) => (await api.get<Item[]>(path("connections"))).filter(isMqtt),
});

const listChannels = listCommand({
  name: "list_channels",
  usage: "list_channels [--no-table-headers] [<column> ...]",
  description: "Lists all channels in the node",
  section: "monitoring",
  columns: CHANNEL_COLUMNS,
  defaults: ["pid", "user", "consumer_count", "messages_unacknowledged"],
  banner: () => "Listing channels ...",
  fetch: ({ api }) => api.get<Item[]>(path("channels")),
});

const listConsumers = listCommand({
  name: "list_consumers",
  usage: "list_consumers [--vhost <vhost>] [--no-table-headers] [<column> ...]",
  description: "Lists all consumers for a vhost",
  section: "monitoring",
  columns: CONSUMER_COLUMNS,
  defaults: Object.keys(CONSUMER_COLUMNS).filter((c) => c !== "activity_status"),
  banner: ({ vhost }) => `Listing consumers in vhost ${vhost} ...`,
  fetch: (ctx) => listInVhost(ctx, "consumers"),
});

const closeConnection: CommandSpec = {
  name: "close_connection",
  usage: "close_connection <connection pid> <explanation>",
  description: "Instructs the broker to close the connection (identified by the pid column of list_connections)",
  section: "monitoring",
  minArgs: 2,
  maxArgs: 2,
  banner: ({ args }) => `Closing connection ${args[0]}, reason: ${args[1]}...`,
  async run({ api, out, args }) {
    const res = await api.send("DELETE", path("connections", args[0]!), { headers: { "x-reason": args[1]! } });
    if (res.status === 404) throw new CliError(EXIT.unavailable, `Connection ${args[0]} was not found`);
    api.expectOk(res);
    out.done();
  },
};

export const CONNECTION_COMMANDS: readonly CommandSpec[] = [listConnections, listMqttConnections, listChannels, listConsumers, closeConnection];
