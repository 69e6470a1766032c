/**
 * A source's filter set (part 3 §3.5.1, the source's `filter` field) read as RabbitMQ 4 reads it
 * for a stream queue, turned into the consumer arguments the domain's stream queue takes from
 * AMQP 0-9-1's basic.consume (src/broker/streams/stream-arguments.ts), so both protocols start
 * and filter a stream reader the same way:
 * - `rabbitmq:stream-offset-spec`: first | last | next (a symbol or string), an offset (an
 *   unsigned integer), a timestamp, or an interval such as "30m" → x-stream-offset;
 * - `rabbitmq:stream-filter`: a string or a list of strings → x-stream-filter;
 * - `rabbitmq:stream-match-unfiltered`: a boolean → x-stream-match-unfiltered.
 * Each entry is matched by its descriptor (a symbol) or, undescribed, by its key. Other filters
 * (JMS selectors, RabbitMQ 4.1's property filter expressions) are not applied.
 */
import type { FieldTable, FieldValue } from "../broker/values/field-value.js";
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { textOf } from "../amqp10/amqp10-value.js";
import { Amqp1Error, CONDITION } from "./amqp1-errors.js";

function scalar(v: Amqp10Value): FieldValue {
  switch (v.type) {
    case "string":
    case "symbol":
      return v.value;
    case "boolean":
      return v.value;
    case "ubyte":
    case "ushort":
    case "uint":
    case "byte":
    case "short":
    case "int":
      return v.value;
    case "ulong":
    case "long":
      return v.value;
    case "timestamp":
      return new Date(v.value);
    case "list":
      return v.value.map(scalar);
    default:
      throw new Amqp1Error(CONDITION.invalidField, `a stream filter value of type ${v.type} is not understood`, "link");
  }
}

const ARGUMENT: Readonly<Record<string, string>> = {
  "rabbitmq:stream-offset-spec": "x-stream-offset",
  "rabbitmq:stream-filter": "x-stream-filter",
  "rabbitmq:stream-match-unfiltered": "x-stream-match-unfiltered",
};

/** The source's filter map (null: none) as stream consumer arguments. */
export function streamArguments(filter: Amqp10Value | undefined): FieldTable {
  const args: FieldTable = {};
  if (filter === undefined || filter.type !== "map") return args;
  for (const [k, v] of filter.value) {
    const name = v.type === "described" ? textOf(v.descriptor) : textOf(k);
    const arg = name === undefined ? undefined : ARGUMENT[name];
    if (arg === undefined) continue;
    args[arg] = scalar(v.type === "described" ? v.value : v);
  }
  return args;
}
