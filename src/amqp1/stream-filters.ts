/**
 * A source's filter set (part 3 §3.5.1, the source's `filter` field) read as RabbitMQ 4 reads it
 * for a stream queue, turned into the consumer arguments the domain's stream queue takes from
 * AMQP 0-9-1's basic.consume (src/broker/streams/stream-arguments.ts), so both protocols start
 * and filter a stream reader the same way:
 * - `rabbitmq:stream-offset-spec`: first | last | next (a symbol or string), an offset (an
 *   unsigned integer), a timestamp, or an interval such as "30m" → x-stream-offset;
 * - `rabbitmq:stream-filter`: a string or a list of strings → x-stream-filter;
 * - `rabbitmq:stream-match-unfiltered`: a boolean → x-stream-match-unfiltered.
 * - RabbitMQ 4.1's property filter expressions (`amqp:properties-filter`,
 *   `amqp:application-properties-filter`: property-filters.ts), applied per message by the link;
 *   at most one of each section (a later one of a section is the one taken, as RabbitMQ folds).
 * - RabbitMQ 4.2's SQL filter expression (the entry named `sql-filter`, sql-filter.ts), applied
 *   per message by the link; SQL and property filters exclude each other: of the two, the later
 *   in the map is the one taken (RabbitMQ's foldr), and only one SQL filter.
 * Each rabbitmq:* entry is matched by its descriptor (a symbol) or, undescribed, by its key.
 * The attach echoes only the entries taken (RabbitMQ 4: the source's effective filter set);
 * others (JMS selectors) are left out and not applied.
 */
import type { FieldTable, FieldValue } from "../broker/values/field-value.js";
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { textOf } from "../amqp10/amqp10-value.js";
import { Amqp1Error, CONDITION } from "./amqp1-errors.js";
import { parsePropertyFilter, passesAll, type PropertyFilter } from "./property-filters.js";
import { parseSqlFilter, passesSql, type SqlFilter } from "./sql-filter.js";
import type { Amqp10Message } from "../amqp10/message-sections.js";

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

/** What a stream reader takes from its source's filter set. */
export interface StreamSourceFilters {
  /** Consumer arguments, as basic.consume's. */
  readonly args: FieldTable;
  /** Property filter expressions to apply per message (empty: none, no per-message cost). */
  readonly propertyFilters: readonly PropertyFilter[];
  /** The SQL filter expression to apply per message; null: none. */
  readonly sqlFilter: SqlFilter | null;
  /** Whether a message (its 1.0 form) passes the property or SQL filters; null when there are none (nothing is decoded). */
  readonly matches: ((m: Amqp10Message) => boolean) | null;
  /** The filter set to echo on the attach: the entries taken, in their order. */
  readonly effective: Amqp10Value;
}

/** The source's filter map (undefined or not a map: none) as a stream reader's arguments and filters. */
export function streamSourceFilters(filter: Amqp10Value | undefined): StreamSourceFilters {
  const args: FieldTable = {};
  const propertyFilters: PropertyFilter[] = [];
  let sqlFilter: SqlFilter | null = null;
  if (filter === undefined || filter.type !== "map") return { args, propertyFilters, sqlFilter, matches: null, effective: { type: "null" } };
  const taken: Array<readonly [Amqp10Value, Amqp10Value]> = [];
  // From the end, as RabbitMQ's foldr: of two filters of one section the last is the one taken.
  for (let i = filter.value.length - 1; i >= 0; i--) {
    const entry = filter.value[i]!;
    const [k, v] = entry;
    const name = v.type === "described" ? textOf(v.descriptor) : textOf(k);
    const arg = name === undefined ? undefined : ARGUMENT[name];
    if (arg !== undefined) {
      args[arg] = scalar(v.type === "described" ? v.value : v);
      taken.unshift(entry);
      continue;
    }
    if (k.type !== "symbol") continue;
    if (k.value === "sql-filter") {
      const parsed: SqlFilter | null = sqlFilter === null && propertyFilters.length === 0 ? parseSqlFilter(v) : null;
      if (parsed === null) continue;
      sqlFilter = parsed;
      taken.unshift(entry);
      continue;
    }
    const f = parsePropertyFilter(v);
    if (f === null || sqlFilter !== null || propertyFilters.some((p) => p.section === f.section)) continue;
    propertyFilters.push(f);
    taken.unshift(entry);
  }
  const sql: SqlFilter | null = sqlFilter;
  const matches = sql !== null ? (m: Amqp10Message): boolean => passesSql(sql, m) : propertyFilters.length > 0 ? (m: Amqp10Message): boolean => passesAll(propertyFilters, m) : null;
  return { args, propertyFilters, sqlFilter, matches, effective: { type: "map", value: taken } };
}
