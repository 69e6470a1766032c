/**
 * The `shovel` runtime parameter's validation, with RabbitMQ 3.10's texts (its
 * rabbit_shovel_parameters and rabbit_parameter_validation): the same keys, types, mandatory
 * keys, unrecognised terms, URI checks and cross-key rules, and the errors in RabbitMQ's order
 * (source/destination rules first, then the keys' own checks, last key first). Coney moves
 * messages over AMQP 0-9-1 only: `src-protocol`/`dest-protocol` amqp10 are refused with a reason.
 */
import { erlangTerm } from "../errors/erlang-term.js";
import { parseAmqpUri, UriError } from "../links/amqp-uri.js";

type Check = (key: string, value: unknown) => string | null;
type Rule = readonly [key: string, check: Check, mandatory: boolean];

/** Who may open a local (`amqp://` with no host) URI's vhost: the caller's answer, or null when allowed. */
export type VhostAccess = (user: string, vhost: string) => boolean;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

const binary: Check = (k, v) => (typeof v === "string" ? null : `${k} should be binary, actually was ${erlangTerm(v)}`);
const number: Check = (k, v) => (typeof v === "number" ? null : `${k} should be a number, actually was ${erlangTerm(v)}`);
const boolean: Check = (k, v) => (typeof v === "boolean" ? null : `${k} should be boolean, actually was ${erlangTerm(v)}`);
const queueName: Check = (k, v) => {
  if (typeof v !== "string") return `${k} should be binary, actually was ${erlangTerm(v)}`;
  const n = Buffer.byteLength(v);
  return n <= 255 ? null : `${k} should be less than 255 bytes, actually was ${n}`;
};
const oneOf = (options: readonly string[]): Check => (k, v) => {
  if (typeof v !== "string") return `${k} should be binary, actually was ${erlangTerm(v)}`;
  return options.includes(v) ? null : `${k} should be one of ${erlangTerm(options)}, actually was ${erlangTerm(v)}`;
};
const deleteAfter: Check = (k, v) =>
  v === "never" || v === "queue-length" || (typeof v === "number" && Number.isInteger(v) && v >= 0)
    ? null
    : `${k} should be a number greater than or equal to 0, "never" or "queue-length", actually was ${erlangTerm(v)}`;
/** RabbitMQ 3.10's queue.declare and basic.consume arguments (rabbit_amqqueue declare_args/consume_args). */
const DECLARE_ARGS = [
  "x-expires", "x-message-ttl", "x-dead-letter-exchange", "x-dead-letter-routing-key", "x-dead-letter-strategy", "x-max-length",
  "x-max-length-bytes", "x-max-in-memory-length", "x-max-in-memory-bytes", "x-max-priority", "x-overflow", "x-queue-mode",
  "x-queue-version", "x-single-active-consumer", "x-queue-type", "x-quorum-initial-group-size", "x-max-age",
  "x-stream-max-segment-size-bytes", "x-initial-cluster-size", "x-queue-leader-locator",
];
const CONSUME_ARGS = ["x-priority", "x-cancel-on-ha-failover", "x-stream-offset"];
const anything: Check = () => null;

/** Queue and consumer arguments: an object of known arguments (their values are checked when the queue is declared). */
const argumentTable = (known: readonly string[]): Check => {
  const rules: Rule[] = known.map((k) => [k, anything, false]);
  return (k, v) => {
    const errors = proplist(k, rules, v);
    return errors.length > 0 ? errors.join("\n") : null;
  };
};

const PUBLISH_PROPERTY_RULES: readonly Rule[] = [
  ["content_type", binary, false],
  ["content_encoding", binary, false],
  ["delivery_mode", number, false],
  ["priority", number, false],
  ["correlation_id", binary, false],
  ["reply_to", binary, false],
  ["expiration", binary, false],
  ["message_id", binary, false],
  ["timestamp", number, false],
  ["type", binary, false],
  ["user_id", binary, false],
  ["app_id", binary, false],
  ["cluster_id", binary, false],
];

const publishProperties: Check = (k, v) => {
  const errors = proplist(k, PUBLISH_PROPERTY_RULES, v);
  return errors.length > 0 ? errors.join("\n") : null;
};

function uriCheck(user: string | null, access: VhostAccess): Check {
  const one = (uri: string): string | null => {
    try {
      const parsed = parseAmqpUri(uri);
      if (parsed.local && user !== null && !access(user, parsed.vhost)) return `user "${user}" may not connect to vhost "${parsed.vhost}"`;
      return null;
    } catch (err) {
      const term = err instanceof UriError ? err.term : String(err);
      return `"${uri}" not a valid URI: {${term},"${uri}"}`;
    }
  };
  return (k, v) => {
    if (typeof v === "string") return one(v);
    if (!Array.isArray(v)) return `${k} should be list, actually was ${erlangTerm(v)}`;
    for (const u of v) {
      // RabbitMQ checks a non-string element as a list of URIs in its turn.
      const e = typeof u === "string" ? one(u) : `${k} should be list, actually was ${erlangTerm(u)}`;
      if (e !== null) return e;
    }
    return null;
  };
}

/** RabbitMQ's proplist validation: each rule's error, last rule first, unrecognised keys in front. */
function proplist(name: string, rules: readonly Rule[], value: unknown): string[] {
  if (!isObject(value)) return [`${name} not a list ${erlangTerm(value)}`];
  const results: string[] = [];
  const seen = new Set<string>();
  for (const [key, check, mandatory] of rules) {
    if (Object.hasOwn(value, key)) {
      seen.add(key);
      const e = check(key, value[key]);
      if (e !== null) results.unshift(e);
    } else if (mandatory) results.unshift(`Key "${key}" not found in ${name}`);
  }
  const rest = Object.entries(value).filter(([k]) => !seen.has(k));
  if (rest.length > 0) results.unshift(`Unrecognised terms ${erlangTerm(Object.fromEntries(rest))} in ${name}`);
  return results;
}

function pget2(def: Record<string, unknown>, a: string, b: string): "zero" | "one" | "both" {
  const n = (def[a] !== undefined ? 1 : 0) + (def[b] !== undefined ? 1 : 0);
  return n === 0 ? "zero" : n === 1 ? "one" : "both";
}

/** The errors RabbitMQ gives for this shovel definition; empty when it is valid. */
export function validateShovel(name: string, def: unknown, user: string | null, access: VhostAccess): string[] {
  if (!isObject(def)) return [`${name} not a list ${erlangTerm(def)}`];
  const errors: string[] = [];
  for (const side of ["src", "dest"] as const) {
    if (def[`${side}-protocol`] === "amqp10") errors.push(`${side}-protocol amqp10 is not supported by Coney: shovels move messages over AMQP 0-9-1 only (amqp091)`);
  }
  if (errors.length > 0) return errors;
  const src = pget2(def, "src-exchange", "src-queue");
  if (src === "zero") errors.push("Must specify 'src-exchange' or 'src-queue'");
  if (src === "both") errors.push("Cannot specify 'src-exchange' and 'src-queue'");
  const after = def["src-delete-after"] ?? def["delete-after"];
  if (typeof after === "number" && Number.isInteger(after) && def["ack-mode"] === "no-ack") errors.push("Cannot specify 'no-ack' and numerical 'delete-after'");
  if (pget2(def, "dest-exchange", "dest-queue") === "both") errors.push("Cannot specify 'dest-exchange' and 'dest-queue'");
  const uri = uriCheck(user, access);
  const rules: Rule[] = [
    ["reconnect-delay", number, false],
    ["ack-mode", oneOf(["no-ack", "on-publish", "on-confirm"]), false],
    ["src-protocol", oneOf(["amqp10", "amqp091"]), false],
    ["dest-protocol", oneOf(["amqp10", "amqp091"]), false],
    ["src-uri", uri, true],
    ["src-exchange", binary, false],
    ["src-exchange-key", binary, false],
    ["src-queue", binary, false],
    ["src-queue-args", argumentTable(DECLARE_ARGS), false],
    ["src-consumer-args", argumentTable(CONSUME_ARGS), false],
    ["prefetch-count", number, false],
    ["src-prefetch-count", number, false],
    ["delete-after", deleteAfter, false],
    ["src-delete-after", deleteAfter, false],
    ["dest-uri", uri, true],
    ["dest-exchange", binary, false],
    ["dest-exchange-key", binary, false],
    ["dest-queue", queueName, false],
    ["dest-queue-args", argumentTable(DECLARE_ARGS), false],
    ["add-forward-headers", boolean, false],
    ["add-timestamp-header", boolean, false],
    ["dest-add-forward-headers", boolean, false],
    ["dest-add-timestamp-header", boolean, false],
    ["publish-properties", publishProperties, false],
    ["dest-publish-properties", publishProperties, false],
  ];
  return [...errors, ...proplist(name, rules, def)];
}
