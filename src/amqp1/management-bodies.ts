/**
 * The bodies of RabbitMQ 4's HTTP-over-AMQP management requests and responses (its
 * rabbit_amqp_management; docs "HTTP over AMQP 1.0 management"), as AMQP type system maps:
 * decoding a queue, exchange or binding declaration (unknown keys or wrong types are a 400, as
 * RabbitMQ 4 answers), encoding a queue's info map and a binding list, the binding "location"
 * path and its arguments hash, and the request target's path segments and query.
 *
 * Defaults as RabbitMQ 4 (not AMQP 0-9-1's): a queue or exchange declared here is durable unless
 * the body says otherwise; an exchange's type defaults to direct.
 */
import { createHash } from "node:crypto";
import { canonicalJson, type ExchangeBinding, type Queue } from "../broker/index.js";
import type { FieldTable } from "../broker/values/field-value.js";
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { str, textOf } from "../amqp10/amqp10-value.js";
import { fieldValue, headerValue } from "../amqp10/message-mapping.js";

/** A request the node answers with a status code and a reason (the response body). */
export class ManagementError extends Error {
  constructor(
    readonly status: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

export const badRequest = (reason: string): ManagementError => new ManagementError("400", reason);

export interface QueueBody {
  durable: boolean;
  exclusive: boolean;
  autoDelete: boolean;
  arguments: FieldTable;
}

export interface ExchangeBody {
  type: string;
  durable: boolean;
  autoDelete: boolean;
  internal: boolean;
  arguments: FieldTable;
}

export interface BindingBody {
  source: string;
  destinationKind: "queue" | "exchange";
  destination: string;
  bindingKey: string;
  arguments: FieldTable;
}

/** The entries of a map body; null (no body) reads as an empty map. */
function entries(body: Amqp10Value, what: string): Array<[string, Amqp10Value]> {
  if (body.type === "null") return [];
  if (body.type !== "map") throw badRequest(`the ${what} body must be a map, not ${body.type}`);
  return body.value.map(([k, v]) => {
    const key = textOf(k);
    if (key === undefined) throw badRequest(`bad ${what} property key of type ${k.type}`);
    return [key, v];
  });
}

function bool(key: string, v: Amqp10Value, what: string): boolean {
  if (v.type !== "boolean") throw badRequest(`bad ${what} property ${key}: ${v.type} is not a boolean`);
  return v.value;
}

function text(key: string, v: Amqp10Value, what: string): string {
  if (v.type !== "string") throw badRequest(`bad ${what} field ${key}: ${v.type} is not a string`);
  return v.value;
}

/** An arguments map (string or symbol keys) as the domain's table, converted as RabbitMQ's to_091. */
export function argumentsTable(v: Amqp10Value): FieldTable {
  const table: FieldTable = {};
  for (const [key, value] of entries(v, "arguments")) table[key] = fieldValue(value);
  return table;
}

/** A table as an arguments map with string keys (RabbitMQ's from_091); values 1.0 cannot hold are left out. */
export function argumentsMap(args: FieldTable): Amqp10Value {
  const out: Array<[Amqp10Value, Amqp10Value]> = [];
  for (const [k, v] of Object.entries(args)) {
    const value = headerValue(v);
    if (value !== null) out.push([str(k), value]);
  }
  return { type: "map", value: out };
}

export function decodeQueue(body: Amqp10Value): QueueBody {
  const q: QueueBody = { durable: true, exclusive: false, autoDelete: false, arguments: {} };
  for (const [k, v] of entries(body, "queue")) {
    if (k === "durable") q.durable = bool(k, v, "queue");
    else if (k === "exclusive") q.exclusive = bool(k, v, "queue");
    else if (k === "auto_delete") q.autoDelete = bool(k, v, "queue");
    else if (k === "arguments") q.arguments = argumentsTable(v);
    else throw badRequest(`bad queue property ${k}`);
  }
  return q;
}

export function decodeExchange(body: Amqp10Value): ExchangeBody {
  const x: ExchangeBody = { type: "direct", durable: true, autoDelete: false, internal: false, arguments: {} };
  for (const [k, v] of entries(body, "exchange")) {
    if (k === "type") x.type = text(k, v, "exchange");
    else if (k === "durable") x.durable = bool(k, v, "exchange");
    else if (k === "auto_delete") x.autoDelete = bool(k, v, "exchange");
    else if (k === "internal") x.internal = bool(k, v, "exchange");
    else if (k === "arguments") x.arguments = argumentsTable(v);
    else throw badRequest(`bad exchange property ${k}`);
  }
  return x;
}

export function decodeBinding(body: Amqp10Value): BindingBody {
  let source: string | null = null;
  let destination: { kind: "queue" | "exchange"; name: string } | null = null;
  let bindingKey = "";
  let args: FieldTable = {};
  for (const [k, v] of entries(body, "binding")) {
    if (k === "source") source = text(k, v, "binding");
    else if (k === "destination_queue") destination = { kind: "queue", name: text(k, v, "binding") };
    else if (k === "destination_exchange") destination = { kind: "exchange", name: text(k, v, "binding") };
    else if (k === "binding_key") bindingKey = text(k, v, "binding");
    else if (k === "arguments") args = argumentsTable(v);
    else throw badRequest(`bad binding field ${k}`);
  }
  if (source === null) throw badRequest("the binding has no source");
  if (destination === null) throw badRequest("the binding has no destination_queue or destination_exchange");
  return { source, destinationKind: destination.kind, destination: destination.name, bindingKey, arguments: args };
}

const entry = (k: string, v: Amqp10Value): [Amqp10Value, Amqp10Value] => [str(k), v];
const boolean = (value: boolean): Amqp10Value => ({ type: "boolean", value });

/**
 * A queue's info map (RabbitMQ 4's encode_queue): counts, flags, type, arguments, and where it
 * lives — the leader node and its replicas (one node holds each queue here: the leader alone).
 */
export function encodeQueue(q: Queue, localNode: string, messageCount: number, consumerCount: number): Amqp10Value {
  const leader = q.leaderNode ?? localNode;
  return {
    type: "map",
    value: [
      entry("leader", str(leader)),
      entry("message_count", { type: "ulong", value: BigInt(messageCount) }),
      entry("consumer_count", { type: "uint", value: consumerCount }),
      entry("name", str(q.name)),
      entry("vhost", str(q.vhost)),
      entry("durable", boolean(q.durable)),
      entry("auto_delete", boolean(q.autoDelete)),
      entry("exclusive", boolean(q.exclusiveOwner !== null)),
      entry("type", str(q.type)),
      entry("arguments", argumentsMap(q.arguments)),
      entry("replicas", { type: "array", value: [str(leader)] }),
    ],
  };
}

export const messageCountBody = (n: number): Amqp10Value => ({ type: "map", value: [entry("message_count", { type: "ulong", value: BigInt(n) })] });

/**
 * The arguments' part of a binding location: "" without arguments, otherwise a stable base64url
 * digest of the arguments (RabbitMQ 4 uses a 32-bit hash there; clients only copy it from a
 * listed binding's location, so only its stability matters).
 */
export function argumentsHash(args: FieldTable): string {
  if (Object.keys(args).length === 0) return "";
  return createHash("sha256").update(canonicalJson(args)).digest().subarray(0, 4).toString("base64url");
}

/** RFC 3986 percent-encoding of everything but unreserved characters (RabbitMQ's uri_string:quote). */
export function quote(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** "/bindings/src=…;dstq=…;key=…;args=…", the path that DELETE takes. */
export function bindingLocation(b: ExchangeBinding): string {
  const d = b.destination;
  return `/bindings/src=${quote(b.source.name)};dst${d.kind === "queue" ? "q" : "e"}=${quote(d.name)};key=${quote(b.routingKey)};args=${argumentsHash(b.args)}`;
}

export function encodeBindings(bindings: readonly ExchangeBinding[]): Amqp10Value {
  return {
    type: "list",
    value: bindings.map((b) => ({
      type: "map" as const,
      value: [
        entry("source", str(b.source.name)),
        entry(b.destination.kind === "queue" ? "destination_queue" : "destination_exchange", str(b.destination.name)),
        entry("binding_key", str(b.routingKey)),
        entry("arguments", argumentsMap(b.args)),
        entry("location", str(bindingLocation(b))),
      ],
    })),
  };
}

/** A location's segment "src=…;dstq|dste=…;key=…;args=…" parsed; a malformed one is a 400. */
export function parseBindingSegment(segment: string): { source: string; destinationKind: "queue" | "exchange"; destination: string; key: string; argsHash: string } {
  const parts = segment.split(";");
  const [src, dst, key, args] = parts;
  const bad = (): ManagementError => badRequest(`bad binding path segment '${segment}'`);
  if (parts.length !== 4 || !src?.startsWith("src=") || !(dst?.startsWith("dstq=") || dst?.startsWith("dste=")) || !key?.startsWith("key=") || !args?.startsWith("args=")) throw bad();
  const source = decodeSegment(src.slice(4));
  const destination = decodeSegment(dst.slice(5));
  if (source === "" || destination === "") throw bad();
  return { source, destinationKind: dst[3] === "q" ? "queue" : "exchange", destination, key: decodeSegment(key.slice(4)), argsHash: args.slice(5) };
}

/** One percent-decoded path segment. */
export function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw badRequest(`bad percent-encoding in '${s}'`);
  }
}

/** A request target ("/queues/q%2F1/messages?x=y") as its still-encoded path segments and its decoded query. */
export function parseTarget(target: string): { segments: string[]; query: URLSearchParams } {
  if (!target.startsWith("/")) throw badRequest(`the request target '${target}' is not an absolute path`);
  const q = target.indexOf("?");
  const path = q < 0 ? target : target.slice(0, q);
  return { segments: path.slice(1).split("/"), query: new URLSearchParams(q < 0 ? "" : target.slice(q + 1)) };
}
