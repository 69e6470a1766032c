/**
 * What of RabbitMQ 3.10's Prometheus output Coney does not expose, in one place, each with its
 * reason. The golden test checks everything else in the recorded reference
 * (rabbitmq-3.10-families.json) is present with RabbitMQ's type, help text and labels.
 */

/** Whole families (by name without the rabbitmq_ / rabbitmq_detailed_ prefix, or by full name for other prefixes). */
export const EXCLUDED_FAMILIES: ReadonlyArray<{ readonly pattern: RegExp; readonly reason: string }> = [
  { pattern: /^erlang_/, reason: "Erlang VM internals (allocators, schedulers, distribution, mnesia): a Node process has none; its own figures are under coney_ instead" },
  { pattern: /^rabbitmq_(detailed_)?erlang_(processes_used|processes_limit|gc_runs_total|gc_reclaimed_bytes_total|scheduler_context_switches_total|scheduler_run_queue|net_ticktime_seconds)$/, reason: "Erlang process, scheduler, GC and distribution figures: no Node equivalent under the same meaning" },
  { pattern: /^rabbitmq_(detailed_)?(queue|channel|connection)_process_reductions_total$/, reason: "Erlang reductions: Coney's queues, channels and connections are not processes" },
  { pattern: /^rabbitmq_(detailed_)?raft_/, reason: "Raft: Coney runs on one node; its quorum queues have no Raft log" },
  { pattern: /^rabbitmq_(detailed_)?(io_|schema_db_|msg_store_|queue_index_)/, reason: "RabbitMQ's file-handle, Mnesia, message-store and queue-index counters: Coney's store keeps no such per-operation counters yet (adding them touches src/store)" },
  { pattern: /^rabbitmq_(detailed_)?queue_disk_(reads|writes)_total$/, reason: "per-queue disk read/write counters are not kept yet (each would be an increment in the store's paging path)" },
  { pattern: /^rabbitmq_(detailed_)?connection_pending_packets$/, reason: "a connection's pending packet count is not kept (the socket's buffered bytes are not packets)" },
  { pattern: /^rabbitmq_(detailed_)?queue_messages_published_total$/, reason: "per channel × queue × exchange publish counters: keeping them costs a map lookup per message and queue; the node-wide figure is rabbitmq_global_messages_routed_total" },
  { pattern: /^rabbitmq_(detailed_)?auth_attempts_detailed_/, reason: "per-source login counters: RabbitMQ keeps them only with track_auth_attempt_source (off by default); not implemented" },
  { pattern: /^rabbitmq_global_messages_dead_lettered_confirmed_total$/, reason: "Coney dead-letters at most once; there is no at-least-once dead-lettering whose confirms to count" },
  { pattern: /^rabbitmq_alarms_file_descriptor_limit$/, reason: "Coney has no file-descriptor alarm, so there is no state to report" },
  { pattern: /^telemetry_scrape_/, reason: "the Erlang prometheus client's self-telemetry (scrape size and duration summaries); not reproduced" },
];

/**
 * Labels RabbitMQ puts on a family that Coney's series lack. RabbitMQ keeps these channel
 * counters per (channel, exchange) or (channel, queue); Coney keeps one set per channel, since
 * splitting by exchange or queue costs a map lookup per message. Coney's rows carry `channel`
 * and `vhost`.
 */
export const EXCLUDED_LABELS: ReadonlyArray<{ readonly pattern: RegExp; readonly labels: readonly string[]; readonly reason: string }> = [
  { pattern: /^rabbitmq_(detailed_)?channel_messages_(published|confirmed|unroutable_returned|unroutable_dropped)_total$/, labels: ["exchange"], reason: "channel counters are per channel, not per channel and exchange" },
  { pattern: /^rabbitmq_(detailed_)?channel_(get_ack|get|get_empty|messages_delivered_ack|messages_delivered|messages_redelivered|messages_acked)_total$/, labels: ["queue"], reason: "channel counters are per channel, not per channel and queue" },
  { pattern: /^rabbitmq_global_messages_(?!dead_lettered_)/, labels: ["queue_type"], reason: "broker-wide delivery counters are kept for all queue types together, not per type" },
];

export function exclusionOf(name: string): string | null {
  return EXCLUDED_FAMILIES.find((e) => e.pattern.test(name))?.reason ?? null;
}

export function excludedLabelsOf(name: string): readonly string[] {
  return EXCLUDED_LABELS.filter((e) => e.pattern.test(name)).flatMap((e) => e.labels);
}

/** Labels Coney adds to RabbitMQ 3.10's, each as a later RabbitMQ has it. */
export const ADDED_LABELS: Readonly<Record<string, readonly string[]>> = {
  // RabbitMQ 3.13+ labels identity_info with the endpoint; the current Overview dashboard filters on it.
  rabbitmq_identity_info: ["rabbitmq_endpoint"],
  // RabbitMQ adds these when its product name and version are set (as in Tanzu RabbitMQ).
  rabbitmq_build_info: ["product_name", "product_version"],
};

/** Families Coney has that RabbitMQ 3.10 does not: the Node runtime's, and the message-size histogram of RabbitMQ 3.13+ that the Overview dashboard charts. */
export const ADDED_FAMILIES: RegExp = /^(coney_.*|rabbitmq_message_size_bytes)$/;
