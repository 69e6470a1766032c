/**
 * The fields RabbitMQ 3.10's management UI reads from each record, with their JSON types: what
 * Coney's records must carry for that UI to render its pages (issue 17).
 *
 * Derived by reading rabbitmq_management 3.10.8's priv/www: the EJS templates of each page
 * (js/tmpl/overview.ejs, node.ejs, connections.ejs, connection.ejs, channels-list.ejs,
 * channel.ejs, exchanges.ejs, exchange.ejs, queues.ejs, queue.ejs, consumers.ejs, users.ejs,
 * user.ejs, vhosts.ejs, vhost.ejs, policies.ejs, policy.ejs, limits.ejs, memory.ejs), the
 * start-up code that reads the overview and /api/auth (index.html, js/global.js
 * setup_global_vars/setup_chart_ranges, js/main.js setup_extensions), and js/charts.js (charts
 * need `<field>_details.samples` when the page asks for ranges). Fields the templates read only
 * under a condition Coney never meets (ssl_* without TLS, quorum or stream-only fields on a
 * classic queue, mirrors, Erlang GC/reductions shown only when present) are not listed.
 * The UI's files are not needed to run the test: this list is the record of that reading.
 *
 * Types: "number", "string", "boolean", "object", "array", "T|null"; "rate" is a
 * `{rate: number}` object and "chart" one that also has `samples` (an array of
 * {sample, timestamp}), `avg` and `avg_rate`.
 */
export type FieldType = "number" | "string" | "boolean" | "object" | "array" | "number|null" | "string|null" | "rate" | "chart";
export type Fields = Readonly<Record<string, FieldType>>;

/** GET /api/auth, read by index.html before the login form. */
export const AUTH: Fields = { enable_uaa: "boolean", uaa_client_id: "string", uaa_location: "string" };

/** GET /api/extensions: the UI starts once every listed script is loaded; its own dispatcher.js must be one. */
export const EXTENSION: Fields = { javascript: "string" };

/** GET /api/overview (global.js setup_global_vars, overview.ejs). */
export const OVERVIEW: Fields = {
  management_version: "string",
  rates_mode: "string",
  sample_retention_policies: "object",
  exchange_types: "array",
  product_name: "string",
  product_version: "string",
  rabbitmq_version: "string",
  erlang_version: "string",
  erlang_full_version: "string",
  cluster_name: "string",
  node: "string",
  disable_stats: "boolean",
  enable_queue_totals: "boolean",
  statistics_db_event_queue: "number",
  object_totals: "object",
  queue_totals: "object",
  message_stats: "object",
  churn_rates: "object",
  listeners: "array",
  contexts: "array",
};
/** setup_chart_ranges calls hasOwnProperty on these. */
export const SAMPLE_RETENTION: Fields = { global: "array", basic: "array" };
export const OBJECT_TOTALS: Fields = { connections: "number", channels: "number", exchanges: "number", queues: "number", consumers: "number" };
/** queue_lengths(): charts with ranges asked. */
export const QUEUE_LENGTHS_CHART: Fields = { messages: "number", messages_details: "chart", messages_ready: "number", messages_ready_details: "chart", messages_unacknowledged: "number", messages_unacknowledged_details: "chart" };
export const CHURN_RATES: Fields = {
  connection_created: "number", connection_created_details: "rate", connection_closed: "number", connection_closed_details: "rate",
  channel_created: "number", channel_created_details: "rate", channel_closed: "number", channel_closed_details: "rate",
  queue_declared: "number", queue_declared_details: "rate", queue_created: "number", queue_created_details: "rate", queue_deleted: "number", queue_deleted_details: "rate",
};
export const LISTENER: Fields = { node: "string", protocol: "string", ip_address: "string", port: "number" };
export const OVERVIEW_CONTEXT: Fields = { node: "string", description: "string", port: "string", path: "string" };

/** GET /api/nodes and /api/nodes/{name}?node_stats_age=… (overview.ejs nodes table, node.ejs). */
export const NODE: Fields = {
  name: "string",
  type: "string",
  running: "boolean",
  os_pid: "string",
  uptime: "number",
  fd_used: "number",
  fd_total: "number",
  sockets_used: "number",
  sockets_total: "number",
  proc_used: "number",
  proc_total: "number",
  mem_used: "number",
  mem_limit: "number",
  mem_alarm: "boolean",
  mem_calculation_strategy: "string",
  disk_free: "number",
  disk_free_limit: "number",
  disk_free_alarm: "boolean",
  rates_mode: "string",
  net_ticktime: "number",
  run_queue: "number",
  processors: "number",
  config_files: "array",
  db_dir: "string",
  log_files: "array",
  applications: "array",
  enabled_plugins: "array",
  auth_mechanisms: "array",
  exchange_types: "array",
  cluster_links: "array",
  partitions: "array",
  ...CHURN_RATES,
};
/** node_stat(): the gauges charted on the node page when it asks for node_stats ranges. */
export const NODE_GAUGES_CHART: Fields = { fd_used_details: "chart", sockets_used_details: "chart", proc_used_details: "chart", mem_used_details: "chart", disk_free_details: "chart" };
export const APPLICATION: Fields = { name: "string", version: "string", description: "string" };
export const REGISTRY_ENTRY: Fields = { name: "string", description: "string", enabled: "boolean" };
/** ?memory=true (memory.ejs): every section it sums, and the totals. */
export const MEMORY: Fields = {
  queue_procs: "number", queue_slave_procs: "number", quorum_queue_procs: "number", quorum_queue_dlx_procs: "number", stream_queue_procs: "number",
  stream_queue_replica_reader_procs: "number", stream_queue_coordinator_procs: "number", binary: "number", connection_readers: "number",
  connection_writers: "number", connection_channels: "number", connection_other: "number", mnesia: "number", msg_index: "number", mgmt_db: "number",
  quorum_ets: "number", other_ets: "number", plugins: "number", other_proc: "number", code: "number", atom: "number", other_system: "number",
  allocated_unused: "number", reserved_unallocated: "number", strategy: "string", total: "object",
};
export const MEMORY_TOTAL: Fields = { rss: "number", allocated: "number", erlang: "number" };

/** GET /api/connections (connections.ejs). */
export const CONNECTION: Fields = {
  name: "string", node: "string", user: "string", vhost: "string", protocol: "string", auth_mechanism: "string", ssl: "boolean", state: "string",
  channels: "number", channel_max: "number", frame_max: "number", timeout: "number", connected_at: "number", client_properties: "object",
  recv_oct: "number", recv_oct_details: "rate", send_oct: "number", send_oct_details: "rate", user_provided_name: "string",
};
/** GET /api/connections/{name}?data_rates_age=… (connection.ejs: data_rates() charts). */
export const CONNECTION_DETAIL_CHART: Fields = { recv_oct_details: "chart", send_oct_details: "chart" };

/** GET /api/channels (channels-list.ejs). */
export const CHANNEL: Fields = {
  name: "string", node: "string", user: "string", vhost: "string", state: "string", connection_details: "object", prefetch_count: "number",
  global_prefetch_count: "number", messages_unacknowledged: "number", messages_unconfirmed: "number", messages_uncommitted: "number",
  acks_uncommitted: "number", confirm: "boolean", transactional: "boolean", message_stats: "object",
};
/** GET /api/channels/{name} (channel.ejs: consumers, and the detailed-mode breakdowns it formats). */
export const CHANNEL_DETAIL: Fields = { ...CHANNEL, consumer_details: "array", publishes: "array", deliveries: "array", pending_raft_commands: "number" };
/** The columns of the channel list's message rates. */
export const CHANNEL_MESSAGE_STATS: Fields = {
  publish_details: "rate", confirm_details: "rate", return_unroutable_details: "rate", drop_unroutable_details: "rate", deliver_get_details: "rate",
  redeliver_details: "rate", ack_details: "rate",
};

/** consumers.ejs (queue and channel pages). */
export const CONSUMER: Fields = {
  consumer_tag: "string", queue: "object", channel_details: "object", ack_required: "boolean", exclusive: "boolean", prefetch_count: "number",
  active: "boolean", activity_status: "string", arguments: "object",
};

/** GET /api/exchanges (exchanges.ejs). */
export const EXCHANGE: Fields = { name: "string", vhost: "string", type: "string", durable: "boolean", auto_delete: "boolean", internal: "boolean", arguments: "object", policy: "string|null" };
/** GET /api/exchanges/{vhost}/{name}?msg_rates_age=… (exchange.ejs). */
export const EXCHANGE_DETAIL: Fields = { ...EXCHANGE, incoming: "array", outgoing: "array", message_stats: "object" };
export const EXCHANGE_MESSAGE_STATS_CHART: Fields = { publish_in_details: "chart", publish_out_details: "chart" };

/** GET /api/queues (queues.ejs default columns). */
export const QUEUE: Fields = {
  name: "string", vhost: "string", type: "string", node: "string", durable: "boolean", auto_delete: "boolean", exclusive: "boolean", arguments: "object",
  state: "string", policy: "string|null", operator_policy: "string|null", consumers: "number", consumer_capacity: "number",
  messages: "number", messages_details: "rate", messages_ready: "number", messages_ready_details: "rate", messages_unacknowledged: "number",
  messages_unacknowledged_details: "rate", messages_ram: "number", messages_persistent: "number", message_bytes: "number", message_bytes_ready: "number",
  message_bytes_unacknowledged: "number", message_bytes_ram: "number", message_bytes_persistent: "number",
};
/** GET /api/queues/{vhost}/{name}?lengths_age=…&msg_rates_age=… (queue.ejs). */
export const QUEUE_DETAIL: Fields = {
  ...QUEUE, effective_policy_definition: "object", memory: "number", messages_paged_out: "number", message_bytes_paged_out: "number",
  consumer_details: "array", incoming: "array", deliveries: "array", backing_queue_status: "object", message_stats: "object",
  ...QUEUE_LENGTHS_CHART,
};
/** queue.ejs links an exclusive queue to its owning connection. */
export const OWNER: Fields = { name: "string", peer_host: "string", peer_port: "number" };
export const QUEUE_MESSAGE_STATS_CHART: Fields = { publish_details: "chart", deliver_get_details: "chart", ack_details: "chart", redeliver_details: "chart" };

/** GET /api/users (users.ejs, user.ejs: password_hash.length tells whether a password is set). */
export const USER: Fields = { name: "string", tags: "array", password_hash: "string" };

/** GET /api/vhosts (vhosts.ejs) and /api/vhosts/{name}?lengths_age=… (vhost.ejs). */
export const VHOST: Fields = {
  name: "string", description: "string", tags: "array", tracing: "boolean", cluster_state: "object", message_stats: "object",
  messages: "number", messages_details: "rate", messages_ready: "number", messages_ready_details: "rate", messages_unacknowledged: "number",
  messages_unacknowledged_details: "rate", recv_oct: "number", recv_oct_details: "rate", send_oct: "number", send_oct_details: "rate",
};
export const VHOST_DETAIL_CHART: Fields = { ...QUEUE_LENGTHS_CHART, recv_oct_details: "chart", send_oct_details: "chart" };

/** GET /api/policies (policies.ejs, policy.ejs). */
export const POLICY: Fields = { name: "string", vhost: "string", pattern: "string", "apply-to": "string", definition: "object", priority: "number" };

/** GET /api/vhost-limits (limits.ejs). */
export const VHOST_LIMIT: Fields = { vhost: "string", value: "object" };
