/**
 * What each queue type refuses at declare, with RabbitMQ's texts (rabbit_quorum_queue:declare):
 * a quorum queue is durable, not auto-delete, not exclusive, and refuses the arguments it has no
 * use for; overflow reject-publish-dlx is a classic-only mode. A stream (rabbit_stream_queue) is
 * durable, not auto-delete, not exclusive, and refuses the arguments of queues that remove messages.
 */
import { BrokerError, describeResource } from "../../errors/broker-error.js";
import type { QueueSpec } from "./queue-spec.js";

/** rabbit_quorum_queue:check_invalid_arguments for the features Coney's quorum queues lack. */
const QUORUM_INVALID_ARGS = ["x-max-priority", "x-queue-mode", "x-max-in-memory-length", "x-max-in-memory-bytes", "x-quorum-initial-group-size", "x-cancel-on-ha-failover"];

/** rabbit_stream_queue:check_invalid_arguments (3.10), and the limits a stream has no use for. */
const STREAM_INVALID_ARGS = ["x-expires", "x-message-ttl", "x-max-length", "x-max-priority", "x-queue-mode", "x-overflow", "x-max-in-memory-length", "x-max-in-memory-bytes", "x-quorum-initial-group-size", "x-cancel-on-ha-failover", "x-dead-letter-exchange", "x-dead-letter-routing-key", "x-single-active-consumer"];

export function checkQueueType(spec: QueueSpec, vhost: string): void {
  const type = spec.arguments["x-queue-type"];
  const resource = describeResource("queue", spec.name, vhost);
  if (type !== "quorum" && type !== "stream") return;
  for (const key of type === "stream" ? STREAM_INVALID_ARGS : QUORUM_INVALID_ARGS) {
    if (Object.hasOwn(spec.arguments, key)) throw new BrokerError("preconditionFailed", `invalid arg '${key}' for ${resource}`);
  }
  if (type === "quorum" && spec.arguments["x-overflow"] === "reject-publish-dlx") {
    throw new BrokerError("preconditionFailed", `invalid arg 'x-overflow' with value 'reject-publish-dlx' for ${resource}`);
  }
  if (spec.autoDelete) throw new BrokerError("preconditionFailed", `invalid property 'auto-delete' for ${resource}`);
  if (spec.exclusiveOwner !== null) throw new BrokerError("preconditionFailed", `invalid property 'exclusive-owner' for ${resource}`);
  if (!spec.durable) throw new BrokerError("preconditionFailed", `invalid property 'non-durable' for ${resource}`);
  // rabbit_stream_queue:check_filter_size (3.13).
  const filterSize = spec.arguments["x-stream-filter-size-bytes"];
  if (type === "stream" && filterSize !== undefined && (Number(filterSize) < 16 || Number(filterSize) > 255)) throw new BrokerError("preconditionFailed", "Invalid value for x-stream-filter-size-bytes");
}
