/**
 * Definition records in RabbitMQ's definitions-file shape (rabbitmqctl export_definitions,
 * GET /api/definitions): used for persistence and for export, so both agree by construction.
 */
import type { FieldTable } from "./values/field-value.js";
import type { Binding } from "./binding.js";
import type { Exchange } from "./exchange/exchange.js";
import type { Queue } from "./queue/queue-type.js";

export interface ExchangeDefinition {
  name: string;
  vhost: string;
  type: string;
  durable: boolean;
  auto_delete: boolean;
  internal: boolean;
  arguments: FieldTable;
}

export interface QueueDefinition {
  name: string;
  vhost: string;
  type: string;
  durable: boolean;
  auto_delete: boolean;
  arguments: FieldTable;
}

export interface BindingDefinition {
  source: string;
  vhost: string;
  destination: string;
  destination_type: "queue" | "exchange";
  routing_key: string;
  arguments: FieldTable;
}

export const exchangeDefinition = (x: Exchange): ExchangeDefinition => ({
  name: x.name,
  vhost: x.vhost,
  type: x.type,
  durable: x.durable,
  auto_delete: x.autoDelete,
  internal: x.internal,
  arguments: x.arguments,
});

export const queueDefinition = (q: Queue): QueueDefinition => ({
  name: q.name,
  vhost: q.vhost,
  type: q.type,
  durable: q.durable,
  auto_delete: q.autoDelete,
  arguments: q.arguments,
});

export const bindingDefinition = (b: Binding): BindingDefinition => ({
  source: b.source.name,
  vhost: b.source.vhost,
  destination: b.destination.name,
  destination_type: b.destination.kind,
  routing_key: b.routingKey,
  arguments: b.args,
});
