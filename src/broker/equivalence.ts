/**
 * Redeclare equivalence, as RabbitMQ checks it: a declare of an existing object must match its
 * durable/auto_delete/... fields and the arguments that matter, else 406 with
 * "inequivalent arg 'durable' for queue 'q' in vhost '/': received 'false' but current is 'true'".
 */
import type { FieldTable } from "./values/field-value.js";
import { BrokerError, describeResource } from "../errors/broker-error.js";
import type { ExchangeSpec, Exchange } from "./exchange/exchange.js";
import { fieldValueEquals } from "./field-value-equals.js";
import { DECLARE_ARGS, describeArgValue } from "./queue/queue-arguments.js";
import type { Queue } from "./queue/queue-type.js";
import type { QueueSpec } from "./queue/queue-spec.js";

function inequivalent(resource: string, field: string, received: string, current: string): BrokerError {
  return new BrokerError("preconditionFailed", `inequivalent arg '${field}' for ${resource}: received ${received} but current is ${current}`);
}

function checkField(resource: string, field: string, received: boolean | string, current: boolean | string): void {
  if (received !== current) throw inequivalent(resource, field, `'${received}'`, `'${current}'`);
}

function checkArgs(resource: string, keys: Iterable<string>, received: FieldTable, current: FieldTable): void {
  for (const key of keys) {
    let r = received[key];
    let c = current[key];
    // RabbitMQ: a missing x-queue-type and "classic" are the same declaration.
    if (key === "x-queue-type") {
      r ??= "classic";
      c ??= "classic";
    }
    if (r === undefined && c === undefined) continue;
    if (r === undefined || c === undefined || !fieldValueEquals(r, c)) {
      throw inequivalent(resource, key, describeArgValue(r), describeArgValue(c));
    }
  }
}

export function assertQueueEquivalent(q: Queue, spec: QueueSpec): void {
  const resource = describeResource("queue", q.name, q.vhost);
  checkField(resource, "durable", spec.durable, q.durable);
  checkField(resource, "auto_delete", spec.autoDelete, q.autoDelete);
  checkArgs(resource, DECLARE_ARGS.keys(), spec.arguments, q.arguments);
}

export function assertExchangeEquivalent(x: Exchange, spec: ExchangeSpec): void {
  const resource = describeResource("exchange", x.name, x.vhost);
  checkField(resource, "type", spec.type, x.type);
  checkField(resource, "durable", spec.durable, x.durable);
  checkField(resource, "auto_delete", spec.autoDelete, x.autoDelete);
  checkField(resource, "internal", spec.internal, x.internal);
  checkArgs(resource, ["alternate-exchange"], spec.arguments, x.arguments);
}
