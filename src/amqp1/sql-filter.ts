/**
 * AMQP SQL filter expressions (`amqp:sql-filter`, descriptor 0x120, under the filter name
 * "sql-filter"; RabbitMQ 4.2's rabbit_amqp_filter_sql) on a stream read over AMQP 1.0: a message
 * is sent when the expression is true of it, not when it is false or unknown. Identifiers name
 * application properties (plain, [delimited] or `a.`), properties fields (`p.subject`,
 * `properties.message_id` …) or `h.priority` (4 when the message has none); a missing value is
 * NULL, and comparisons and arithmetic with NULL are unknown (three-valued logic, as JMS
 * selectors). Equality holds across number types and between strings and binaries of the same
 * bytes; < > <= >= compare numbers with numbers and strings with strings only (false otherwise).
 *
 * Limits as RabbitMQ 4.2 (the draft's §7.1): at most 4,096 characters and 200 tokens. A filter
 * that does not parse is not taken (left out of the attach's echoed filter set), as RabbitMQ.
 */
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { textOf } from "../amqp10/amqp10-value.js";
import type { Amqp10Message, PropertyField } from "../amqp10/message-sections.js";
import { SqlSyntaxError, tokenize, type Identifier } from "./sql-filter-lexer.js";
import { parseSql, type SqlNode } from "./sql-filter-parser.js";
import { matchLike } from "./sql-like.js";

const MAX_LENGTH = 4096;
const MAX_TOKENS = 200;
const SQL_FILTER_CODE = 0x120n;
const DEFAULT_PRIORITY = 4;

/** A value during evaluation: undefined is SQL's NULL (unknown). */
type SqlValue = number | string | Buffer | boolean | undefined;

export interface SqlFilter {
  readonly root: SqlNode;
}

/** The filter's value (described amqp:sql-filter, a string) as a filter; null when it is none or does not parse. */
export function parseSqlFilter(v: Amqp10Value): SqlFilter | null {
  if (v.type !== "described" || v.value.type !== "string") return null;
  const d = v.descriptor;
  if (!((d.type === "symbol" && d.value === "amqp:sql-filter") || (d.type === "ulong" && d.value === SQL_FILTER_CODE))) return null;
  const sql = v.value.value;
  if ([...sql].length > MAX_LENGTH) return null;
  try {
    const tokens = tokenize(sql);
    if (tokens.length > MAX_TOKENS) return null;
    return { root: parseSql(tokens) };
  } catch (err) {
    if (err instanceof SqlSyntaxError) return null;
    throw err;
  }
}

const FIELD: Readonly<Record<string, PropertyField>> = {
  message_id: "messageId",
  user_id: "userId",
  to: "to",
  subject: "subject",
  reply_to: "replyTo",
  correlation_id: "correlationId",
  content_type: "contentType",
  content_encoding: "contentEncoding",
  absolute_expiry_time: "absoluteExpiryTime",
  creation_time: "creationTime",
  group_id: "groupId",
  group_sequence: "groupSequence",
  reply_to_group_id: "replyToGroupId",
};

/** A message's value as SQL sees it: numbers (of any AMQP type, timestamps as ms), strings, binaries, booleans; others are NULL. */
function sqlValue(v: Amqp10Value | undefined): SqlValue {
  // Scalars carry a number, bigint, string, boolean or Buffer; null and compound values carry none of these.
  const x = (v as { value?: unknown } | undefined)?.value;
  if (typeof x === "number" || typeof x === "string" || typeof x === "boolean" || Buffer.isBuffer(x)) return x;
  return typeof x === "bigint" ? Number(x) : undefined;
}

function lookup(id: Identifier, m: Amqp10Message): SqlValue {
  if (id.section === "application-properties") {
    for (const [k, v] of m.applicationProperties ?? []) if (textOf(k) === id.key && k.type === "string") return sqlValue(v);
    return undefined;
  }
  if (id.section === "header") {
    const p = m.header?.[1];
    return p !== undefined && p.type === "ubyte" ? p.value : DEFAULT_PRIORITY;
  }
  return sqlValue(m.properties?.[FIELD[id.field]!]);
}

const isText = (v: SqlValue): v is string | Buffer => typeof v === "string" || Buffer.isBuffer(v);

/** Erlang's == as RabbitMQ compares: numbers by value, strings and binaries by their bytes. */
function equal(a: SqlValue, b: SqlValue): boolean {
  if (typeof a === "number" || typeof b === "number" || typeof a === "boolean" || typeof b === "boolean") return a === b;
  if (typeof a === "string" && typeof b === "string") return a === b;
  if (isText(a) && isText(b)) return Buffer.from(a).equals(Buffer.from(b));
  return false;
}

function order(a: SqlValue, b: SqlValue): number | null {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (isText(a) && isText(b)) return typeof a === "string" && typeof b === "string" ? (a < b ? -1 : a > b ? 1 : 0) : Buffer.compare(Buffer.from(a), Buffer.from(b));
  return null;
}

function compare(op: string, a: SqlValue, b: SqlValue): boolean | undefined {
  if (a === undefined || b === undefined) return undefined;
  if (op === "=") return equal(a, b);
  if (op === "<>") return !equal(a, b);
  const c = order(a, b);
  if (c === null) return false;
  return op === "<" ? c < 0 : op === ">" ? c > 0 : op === "<=" ? c <= 0 : c >= 0;
}

function arithmetic(op: string, a: SqlValue, b: SqlValue): SqlValue {
  if (typeof a !== "number" || typeof b !== "number") return undefined;
  switch (op) {
    case "+":
      return a + b;
    case "-":
      return a - b;
    case "*":
      return a * b;
    case "/":
      return b === 0 ? undefined : a / b;
    default:
      // % of integers only (Erlang's rem: the sign of the dividend, as JavaScript's %).
      return Number.isInteger(a) && Number.isInteger(b) && b !== 0 ? a % b : undefined;
  }
}

function evaluate(n: SqlNode, m: Amqp10Message): SqlValue {
  switch (n.kind) {
    case "literal":
      return n.value;
    case "identifier":
      return lookup(n.id, m);
    case "utc":
      return Date.now();
    case "and": {
      const l = evaluate(n.left, m);
      if (l === false) return false;
      const r = evaluate(n.right, m);
      if (r === false) return false;
      return l === true && r === true ? true : undefined;
    }
    case "or": {
      const l = evaluate(n.left, m);
      if (l === true) return true;
      const r = evaluate(n.right, m);
      if (r === true) return true;
      return l === false && r === false ? false : undefined;
    }
    case "not": {
      const v = evaluate(n.operand, m);
      return v === true ? false : v === false ? true : undefined;
    }
    case "compare":
      return compare(n.op, evaluate(n.left, m), evaluate(n.right, m));
    case "arithmetic":
      return arithmetic(n.op, evaluate(n.left, m), evaluate(n.right, m));
    case "unary": {
      const v = evaluate(n.operand, m);
      return typeof v !== "number" ? undefined : n.op === "-" ? -v : v;
    }
    case "in": {
      const v = evaluate(n.operand, m);
      if (v === undefined) return undefined;
      return n.list.some((e) => equal(evaluate(e, m), v));
    }
    case "is-null":
      return evaluate(n.operand, m) === undefined;
    case "like": {
      const v = evaluate(n.operand, m);
      return isText(v) ? matchLike(v, n.pattern) : undefined;
    }
  }
}

/** Whether the message passes: the expression is true of it (false and unknown do not pass). */
export function passesSql(f: SqlFilter, m: Amqp10Message): boolean {
  return evaluate(f.root, m) === true;
}
