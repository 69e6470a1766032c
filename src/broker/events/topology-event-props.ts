/**
 * RabbitMQ's event properties for queues, exchanges and bindings (rabbit_amqqueue,
 * rabbit_exchange and rabbit_binding `info` items), from the domain's objects.
 */
import type { Binding } from "../binding.js";
import type { Exchange } from "../exchange/exchange.js";
import type { Queue } from "../queue/queue-type.js";

export function queueEventProps(q: Queue): Record<string, unknown> {
  return { name: q.name, vhost: q.vhost, durable: q.durable, auto_delete: q.autoDelete, exclusive: q.exclusiveOwner !== null, type: q.type, arguments: q.arguments };
}

export function exchangeEventProps(x: Exchange): Record<string, unknown> {
  return { name: x.name, vhost: x.vhost, type: x.type, durable: x.durable, auto_delete: x.autoDelete, internal: x.internal, arguments: x.arguments };
}

export function bindingEventProps(vhost: string, b: Binding): Record<string, unknown> {
  return { source_name: b.source.name, source_kind: "exchange", destination_name: b.destination.name, destination_kind: b.destination.kind, routing_key: b.routingKey, arguments: b.args, vhost };
}
