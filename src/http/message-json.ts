/**
 * Messages as the management API shows and takes them: POST …/publish bodies become domain
 * messages; POST …/get takes messages with RabbitMQ's ackmodes and encodings.
 */
import { joinBody } from "../broker/values/message-body.js";
import type { MessageProperties } from "../broker/values/message-properties.js";
import { getAsync, type Queue, type QueueEntry } from "../broker/index.js";
import { badRequestTerm } from "../errors/broker-error.js";
import { badRequest } from "./http-errors.js";
import { requireKeys, type Body } from "./request-body.js";

const PROPS: ReadonlyArray<[keyof MessageProperties, string, "string" | "number" | "table"]> = [
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

export function propertiesFromJson(json: Record<string, unknown>): MessageProperties {
  const out: Record<string, unknown> = {};
  for (const [camel, snake, kind] of PROPS) {
    const v = json[snake];
    if (v === undefined || v === null) continue;
    const ok = kind === "table" ? typeof v === "object" && !Array.isArray(v) : typeof v === kind;
    if (!ok) throw badRequest(`property '${snake}' must be a ${kind === "table" ? "JSON object" : kind}`);
    out[camel] = v;
  }
  return out as MessageProperties;
}

export function propertiesToJson(p: MessageProperties): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [camel, snake] of PROPS) if (p[camel] !== undefined) out[snake] = p[camel];
  return out;
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A publish body as RabbitMQ checks it: every key present, the payload decodable. */
export function payloadFromJson(b: Body): Buffer {
  requireKeys(b, ["routing_key", "properties", "payload", "payload_encoding"]);
  const payload = b["payload"];
  const encoding = b["payload_encoding"];
  if (typeof payload !== "string") throw badRequest("'payload' must be a string");
  if (encoding === "string") return Buffer.from(payload, "utf8");
  if (encoding === "base64") {
    if (!STRICT_BASE64.test(payload)) throw badRequestTerm("not_base64", payload);
    return Buffer.from(payload, "base64");
  }
  throw badRequestTerm("unsupported_encoding", encoding);
}

const ACKMODES = ["ack_requeue_true", "ack_requeue_false", "reject_requeue_true", "reject_requeue_false"];

/** A count or truncate limit: a JSON integer, or (as rabbitmqadmin sends it) a string of one. */
function wholeNumber(v: unknown, key: string, min: number): number {
  const n = typeof v === "string" && /^\d+$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== "number") throw badRequestTerm("not_integer", v);
  if (!Number.isInteger(n) || n < min) throw badRequest(`'${key}' must be an integer of at least ${min}, got ${JSON.stringify(v)}`);
  return n;
}

/** POST /api/queues/{v}/{q}/get: a round trip per message when the queue is led by another worker. */
export async function getMessages(q: Queue, b: Body): Promise<unknown[]> {
  requireKeys(b, ["count", "ackmode", "encoding"]);
  const count = wholeNumber(b["count"], "count", 1);
  const ackmode = b["ackmode"];
  // RabbitMQ 3.10 crashes (500) on an unknown ackmode; a 400 says what is wrong.
  if (typeof ackmode !== "string" || !ACKMODES.includes(ackmode)) throw badRequest(`'ackmode' must be one of ${ACKMODES.join(", ")}`);
  const encoding = b["encoding"];
  if (encoding !== "auto" && encoding !== "base64") throw badRequest("Unsupported encoding. Please use auto or base64.");
  const truncate = b["truncate"] === undefined || b["truncate"] === null ? undefined : wholeNumber(b["truncate"], "truncate", 0);

  const taken: QueueEntry[] = [];
  let left = 0;
  for (let i = 0; i < count; i++) {
    const got = await getAsync(q, false);
    if (got === null) break;
    taken.push(got.entry);
    left = got.remaining;
  }
  // The seed and RabbitMQ: each message's message_count is the number left after it was taken.
  const out = taken.map((e, i) => {
    const whole = joinBody(e.message.body);
    const body = truncate !== undefined ? whole.subarray(0, truncate) : whole;
    const asString = encoding === "auto" && isUtf8(body);
    return {
      payload_bytes: e.message.bodySize,
      redelivered: e.redelivered,
      exchange: e.message.exchange,
      routing_key: e.message.routingKey,
      message_count: left + taken.length - i - 1,
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

