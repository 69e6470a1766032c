/**
 * What RabbitMQ 3.10 refuses of a stream, wherever the stream is led (rabbit_stream_queue): the
 * consume checks in its order, and the methods a stream does not support. StreamQueue (the
 * leader's) and RemoteStreamQueue (another node's view of it) answer with these, so a client gets
 * the same reply code and text on every node.
 */
import { BrokerError, describeResource } from "../../errors/broker-error.js";
import type { ConsumerTerms } from "../queue/queue-type.js";
import { parseStreamFilter, parseStreamOffset } from "./stream-arguments.js";

/** basic.consume on a stream: prefetch required, no automatic acks, no global qos, a valid offset and filter. */
export function admitStreamConsumer(vhost: string, name: string, c: ConsumerTerms, now: number): void {
  const resource = describeResource("queue", name, vhost);
  if (c.prefetch === 0) throw new BrokerError("preconditionFailed", `consumer prefetch count is not set for '${resource}'`);
  if (c.noAck) throw new BrokerError("notImplemented", `automatic acknowledgement not supported by stream queues ${resource}`);
  if (c.channelPrefetch > 0) throw new BrokerError("notImplemented", `${resource} does not support global qos`);
  parseStreamOffset(c.arguments["x-stream-offset"] as never, now);
  parseStreamFilter(c.arguments as never);
}

/** basic.get, basic.nack / basic.reject and queue.purge on a stream. */
export function unsupportedOnStream(method: "basic.get" | "basic.nack and basic.reject" | "queue.purge", vhost: string, name: string): BrokerError {
  return new BrokerError("notImplemented", `${method} not supported by stream queues ${describeResource("queue", name, vhost)}`);
}
