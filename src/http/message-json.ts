/**
 * Messages as the management API shows and takes them: POST …/publish bodies become domain
 * messages; POST …/get takes messages with RabbitMQ's ackmodes and encodings.
 */
import { joinBody } from "../broker/message-body.js";
import type { BasicProperties } from "../amqp/codec/generated.js";
import type { Queue } from "../broker/queue/queue.js";
import type { QueueEntry } from "../broker/queue/queue-entry.js";
import { badRequest } from "./http-errors.js";
import type { Body } from "./request-body.js";

const PROPS: ReadonlyArray<[keyof BasicProperties, string, "string" | "number" | "table"]> = [
  ["contentType", "content_type", "string"],
  ["contentEncoding", "content_encoding", "string"],
  ["headers", "headers", "table"],
  ["deliveryMode", "delivery_mode", "number"],
  ["priority", "priority", "number"],
  ["correlationId", "correlation_id", "string"],
  ["replyTo", "reply_to", "string"],
  ["expiration", "expiration", "string"],
  ["messageId", "message_id", "string"],
  ["timestamp", "timestamp", "number"],
  ["type", "type", "string"],
  ["userId", "user_id", "string"],
  ["appId", "app_id", "string"],
  ["clusterId", "cluster_id", "string"],
];

export function propertiesFromJson(json: Record<string, unknown>): BasicProperties {
  const out: Record<string, unknown> = {};
  for (const [camel, snake, kind] of PROPS) {
    const v = json[snake];
    if (v === undefined || v === null) continue;
    const ok = kind === "table" ? typeof v === "object" && !Array.isArray(v) : typeof v === kind;
    if (!ok) throw badRequest(`property '${snake}' must be a ${kind === "table" ? "JSON object" : kind}`);
    out[camel] = v;
  }
  return out as BasicProperties;
}

export function propertiesToJson(p: BasicProperties): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [camel, snake] of PROPS) if (p[camel] !== undefined) out[snake] = p[camel];
  return out;
}

export function payloadFromJson(b: Body): Buffer {
  const payload = b["payload"];
  const encoding = b["payload_encoding"] ?? "string";
  if (typeof payload !== "string") throw badRequest("'payload' must be a string");
  if (encoding === "string") return Buffer.from(payload, "utf8");
  if (encoding === "base64") return Buffer.from(payload, "base64");
  throw badRequest(`payload_encoding must be 'string' or 'base64', got ${JSON.stringify(encoding)}`);
}

const ACKMODES = ["ack_requeue_true", "ack_requeue_false", "reject_requeue_true", "reject_requeue_false"];

export function getMessages(q: Queue, b: Body): unknown[] {
  const count = b["count"] ?? 1;
  if (typeof count !== "number" || !Number.isInteger(count) || count < 1) throw badRequest("'count' must be a positive integer");
  const ackmode = b["ackmode"] ?? "ack_requeue_true";
  if (typeof ackmode !== "string" || !ACKMODES.includes(ackmode)) throw badRequest(`'ackmode' must be one of ${ACKMODES.join(", ")}`);
  const encoding = b["encoding"] ?? "auto";
  if (encoding !== "auto" && encoding !== "base64") throw badRequest("'encoding' must be 'auto' or 'base64'");
  const truncate = b["truncate"];
  if (truncate !== undefined && (typeof truncate !== "number" || truncate < 0)) throw badRequest("'truncate' must be a non-negative integer");

  const taken: QueueEntry[] = [];
  for (let i = 0; i < count; i++) {
    const e = q.get(false);
    if (!e) break;
    taken.push(e);
  }
  const out = taken.map((e, i) => {
    const whole = joinBody(e.message.body);
    const body = typeof truncate === "number" ? whole.subarray(0, truncate) : whole;
    const asString = encoding === "auto" && isUtf8(body);
    return {
      payload_bytes: e.message.bodySize,
      redelivered: e.redelivered,
      exchange: e.message.exchange,
      routing_key: e.message.routingKey,
      message_count: q.messageCount + (ackmode.endsWith("requeue_true") ? taken.length - i - 1 : 0),
      properties: propertiesToJson(e.message.properties),
      payload: asString ? body.toString("utf8") : body.toString("base64"),
      payload_encoding: asString ? "string" : "base64",
    };
  });
  if (ackmode.endsWith("requeue_true")) q.requeue(taken);
  else for (const e of taken) if (ackmode.startsWith("ack")) q.settle(e); else q.discard(e);
  return out;
}

function isUtf8(b: Buffer): boolean {
  return Buffer.from(b.toString("utf8"), "utf8").equals(b);
}

