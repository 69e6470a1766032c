/**
 * A validated `shovel` parameter read into what a running shovel needs, with RabbitMQ's
 * defaults (ack-mode on-confirm, prefetch 1000, delete-after never, reconnect-delay 5 s) and its
 * legacy key names (prefetch-count, delete-after, add-forward-headers, publish-properties).
 */
import type { FieldTable } from "../broker/values/field-value.js";
import type { MessageProperties } from "../broker/values/message-properties.js";

export type AckMode = "on-confirm" | "on-publish" | "no-ack";
export type DeleteAfter = "never" | "queue-length" | number;

export interface ShovelConfig {
  readonly vhost: string;
  readonly name: string;
  readonly srcUris: readonly string[];
  readonly srcQueue: string | null;
  readonly srcExchange: string | null;
  readonly srcExchangeKey: string;
  readonly srcQueueArgs: FieldTable;
  readonly srcConsumerArgs: FieldTable;
  readonly prefetch: number;
  readonly deleteAfter: DeleteAfter;
  readonly destUris: readonly string[];
  readonly destQueue: string | null;
  readonly destExchange: string | null;
  readonly destExchangeKey: string | null;
  readonly destQueueArgs: FieldTable;
  readonly addForwardHeaders: boolean;
  readonly addTimestampHeader: boolean;
  /** dest-publish-properties: set on every message published. */
  readonly publishProperties: MessageProperties;
  readonly ackMode: AckMode;
  /** Seconds before a terminated shovel starts again; 0 = it stays terminated. */
  readonly reconnectDelay: number;
}

/** No dest-publish-properties: one shared object, so the per-message path can tell by identity. */
export const EMPTY_PROPERTIES: MessageProperties = Object.freeze({});

const PROPERTY_NAMES: Record<string, keyof MessageProperties> = {
  content_type: "contentType",
  content_encoding: "contentEncoding",
  delivery_mode: "deliveryMode",
  priority: "priority",
  correlation_id: "correlationId",
  reply_to: "replyTo",
  expiration: "expiration",
  message_id: "messageId",
  timestamp: "timestamp",
  type: "type",
  user_id: "userId",
  app_id: "appId",
  cluster_id: "clusterId",
};

const uris = (v: unknown): string[] => (typeof v === "string" ? [v] : (v as string[]));
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const table = (v: unknown): FieldTable => (v !== null && typeof v === "object" ? (v as FieldTable) : {});

/** Reads a definition validateShovel accepted. */
export function shovelConfig(vhost: string, name: string, def: Record<string, unknown>): ShovelConfig {
  const props: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(table(def["dest-publish-properties"] ?? def["publish-properties"]))) {
    const field = PROPERTY_NAMES[k];
    if (field) props[field] = v;
  }
  return {
    vhost,
    name,
    srcUris: uris(def["src-uri"]),
    srcQueue: str(def["src-queue"]),
    srcExchange: str(def["src-exchange"]),
    srcExchangeKey: str(def["src-exchange-key"]) ?? "",
    srcQueueArgs: table(def["src-queue-args"]),
    srcConsumerArgs: table(def["src-consumer-args"]),
    prefetch: (def["src-prefetch-count"] ?? def["prefetch-count"] ?? 1000) as number,
    deleteAfter: (def["src-delete-after"] ?? def["delete-after"] ?? "never") as DeleteAfter,
    destUris: uris(def["dest-uri"]),
    destQueue: str(def["dest-queue"]),
    destExchange: str(def["dest-exchange"]),
    destExchangeKey: str(def["dest-exchange-key"]),
    destQueueArgs: table(def["dest-queue-args"]),
    addForwardHeaders: (def["dest-add-forward-headers"] ?? def["add-forward-headers"] ?? false) as boolean,
    addTimestampHeader: (def["dest-add-timestamp-header"] ?? def["add-timestamp-header"] ?? false) as boolean,
    publishProperties: Object.keys(props).length === 0 ? EMPTY_PROPERTIES : (props as MessageProperties),
    ackMode: (def["ack-mode"] ?? "on-confirm") as AckMode,
    reconnectDelay: (def["reconnect-delay"] ?? 5) as number,
  };
}
