/**
 * What each queue type takes: declare arguments, consumer arguments, policy keys, properties.
 * Arguments: RabbitMQ 3.10 refuses an argument it knows that the queue's type has no use for,
 * with "invalid arg … of queue type rabbit_<type>_queue", before it looks at any argument's value;
 * arguments it does not know pass (the lists below are RabbitMQ 3.10.8's answers, recorded in
 * test/compat/recorded/queue-type-arguments.json). Policies: one holding a key the type has no
 * use for does not apply to it (policy-queue-types.json). Properties
 * (rabbit_quorum_queue / rabbit_stream_queue:declare): quorum queues and streams are durable, not
 * auto-delete and not exclusive.
 */
import { BrokerError, describeResource } from "../../errors/broker-error.js";
import { fieldTypeName, type FieldTable } from "../values/field-value.js";
import type { QueueSpec } from "./queue-spec.js";

export type QueueType = "classic" | "quorum" | "stream";

/** What every type takes. */
const ANY_TYPE = ["x-queue-type"];
/** The arguments of queues that remove what was consumed, classic and quorum alike. */
const CONSUMED_QUEUE = ["x-expires", "x-message-ttl", "x-dead-letter-exchange", "x-dead-letter-routing-key", "x-max-length", "x-max-length-bytes", "x-overflow", "x-single-active-consumer"];

const TAKES: Readonly<Record<QueueType, ReadonlySet<string>>> = {
  classic: new Set([...ANY_TYPE, ...CONSUMED_QUEUE, "x-max-priority", "x-queue-mode", "x-queue-version", "x-queue-master-locator"]),
  quorum: new Set([...ANY_TYPE, ...CONSUMED_QUEUE, "x-max-in-memory-length", "x-max-in-memory-bytes", "x-quorum-initial-group-size", "x-queue-leader-locator", "x-delivery-limit", "x-dead-letter-strategy"]),
  // x-stream-filter-size-bytes is RabbitMQ 3.13's (Coney's streams have its chunk filters).
  stream: new Set([...ANY_TYPE, "x-max-length-bytes", "x-max-age", "x-stream-max-segment-size-bytes", "x-initial-cluster-size", "x-queue-leader-locator", "x-stream-filter-size-bytes"]),
};

/** Every argument some type takes: the arguments RabbitMQ knows, and so refuses where they do not apply. */
const KNOWN: ReadonlySet<string> = new Set(Object.values(TAKES).flatMap((keys) => [...keys]));

/**
 * Refuses an argument the queue's type has no use for (RabbitMQ's first check of a declare's
 * arguments, before their values: validateQueueArguments). An unknown x-queue-type is left to
 * that value check.
 */
export function checkTypeArguments(args: FieldTable, name: string, vhost: string): void {
  const declared = args["x-queue-type"] ?? "classic";
  if (declared !== "classic" && declared !== "quorum" && declared !== "stream") return;
  refuseForeign(args, KNOWN, TAKES[declared], declared, name, vhost);
}

/** Throws RabbitMQ's refusal for the first argument of `args` that is `known` but not one `takes`. */
function refuseForeign(args: FieldTable, known: ReadonlySet<string>, takes: ReadonlySet<string>, type: QueueType, queue: string, vhost: string): void {
  for (const key of Object.keys(args)) {
    if (known.has(key) && !takes.has(key)) throw new BrokerError("preconditionFailed", `invalid arg '${key}' for ${describeResource("queue", queue, vhost)} of queue type rabbit_${type}_queue`);
  }
}

/** The consumer arguments each type takes (RabbitMQ 3.10.8's answers to basic.consume). */
const CONSUMER_TAKES: Readonly<Record<QueueType, ReadonlySet<string>>> = {
  classic: new Set(["x-priority", "x-cancel-on-ha-failover", "x-credit"]),
  quorum: new Set(["x-priority", "x-credit"]),
  stream: new Set(["x-stream-offset", "x-credit"]),
};
const CONSUMER_KNOWN: ReadonlySet<string> = new Set(Object.values(CONSUMER_TAKES).flatMap((keys) => [...keys]));

/**
 * A consumer's arguments, checked before anything else about the consumer (exclusive use, a
 * stream's prefetch), as RabbitMQ 3.10 does: a known argument the queue's type has no use for
 * (x-stream-offset on a classic queue, x-priority on a stream), then x-priority's value.
 * Returns the consumer's priority (0 without x-priority).
 */
export function checkConsumerArguments(type: QueueType, args: FieldTable, queue: string, vhost: string): number {
  refuseForeign(args, CONSUMER_KNOWN, CONSUMER_TAKES[type], type, queue, vhost);
  const priority = args["x-priority"];
  if (priority === undefined) return 0;
  if (typeof priority === "number" && Number.isInteger(priority)) return priority;
  if (typeof priority === "bigint") return Number(priority);
  throw new BrokerError("preconditionFailed", `invalid arg 'x-priority' for ${describeResource("queue", queue, vhost)}: "expected integer, got ${fieldTypeName(priority)}"`);
}

/** The HA keys of classic mirrored queues, which neither quorum queues nor streams have. */
const MIRRORING = ["ha-mode", "ha-params", "ha-sync-mode", "ha-promote-on-shutdown", "ha-promote-on-failure"];

/** The policy keys each type has no use for (RabbitMQ 3.10's unsupported_policies of each queue type). */
const POLICY_KEYS_FOREIGN: Readonly<Record<QueueType, ReadonlySet<string>>> = {
  classic: new Set(["max-age", "stream-max-segment-size-bytes", "queue-leader-locator", "initial-cluster-size", "delivery-limit", "dead-letter-strategy"]),
  quorum: new Set(["max-priority", "queue-mode", "single-active-consumer", ...MIRRORING, "queue-master-locator", "max-age", "stream-max-segment-size-bytes", "initial-cluster-size"]),
  stream: new Set(["expires", "message-ttl", "dead-letter-exchange", "dead-letter-routing-key", "max-length", "max-in-memory-length", "max-in-memory-bytes", "max-priority", "overflow", "queue-mode", "single-active-consumer", "delivery-limit", ...MIRRORING, "queue-master-locator", "dead-letter-strategy"]),
};

/**
 * Whether a policy (or operator policy) may apply to a queue of this type: not when its
 * definition holds a key the type has no use for. RabbitMQ 3.10 leaves such a policy out when
 * it picks the highest-priority match, so a lower one may apply instead — one policy with
 * max-length and delivery-limit governs quorum queues and leaves classic queues alone.
 */
export function policyAppliesToType(type: string, definition: Readonly<Record<string, unknown>>): boolean {
  const foreign = POLICY_KEYS_FOREIGN[type === "quorum" || type === "stream" ? type : "classic"];
  for (const key of Object.keys(definition)) if (foreign.has(key)) return false;
  return true;
}

/** The properties a quorum queue or a stream must have, and a stream's filter size. */
export function checkQueueType(spec: QueueSpec, vhost: string): void {
  const type = spec.arguments["x-queue-type"];
  const resource = describeResource("queue", spec.name, vhost);
  if (type !== "quorum" && type !== "stream") return;
  if (spec.autoDelete) throw new BrokerError("preconditionFailed", `invalid property 'auto-delete' for ${resource}`);
  if (spec.exclusiveOwner !== null) throw new BrokerError("preconditionFailed", `invalid property 'exclusive-owner' for ${resource}`);
  if (!spec.durable) throw new BrokerError("preconditionFailed", `invalid property 'non-durable' for ${resource}`);
  // rabbit_stream_queue:check_filter_size (3.13).
  const filterSize = spec.arguments["x-stream-filter-size-bytes"];
  if (type === "stream" && filterSize !== undefined && (Number(filterSize) < 16 || Number(filterSize) > 255)) throw new BrokerError("preconditionFailed", "Invalid value for x-stream-filter-size-bytes");
}
