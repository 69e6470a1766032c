/**
 * The tokens of an AMQP SQL filter expression (OASIS "AMQP Filter Expressions" §6, as RabbitMQ
 * 4.2's rabbit_amqp_sql_lexer reads them): upper-case keywords (AND OR NOT LIKE IN IS NULL ESCAPE
 * TRUE FALSE UTC — a keyword in another case, or a reserved word such as EXISTS or LOWER, is no
 * identifier), integers, decimals with an optional exponent, '…' and "…" strings (a doubled quote
 * escapes it), 0x binaries (upper-case hex pairs), identifiers — plain (an application
 * property), with a section prefix (`header.`/`h.`, `properties.`/`p.`,
 * `application_properties.`/`a.`) or [delimited] ([[ and ]] escape the brackets) — operators,
 * parentheses and commas. Anything else is a SqlSyntaxError.
 */

export class SqlSyntaxError extends Error {}

/** A header or properties field (RabbitMQ 4.2's section_field_name_to_atom), or an application property's name. */
export type Identifier = { readonly section: "header" | "properties"; readonly field: string } | { readonly section: "application-properties"; readonly key: string };

export type Token =
  | { readonly kind: "op"; readonly op: string }
  | { readonly kind: "int"; readonly value: number }
  | { readonly kind: "float"; readonly value: number }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "binary"; readonly value: Buffer }
  | { readonly kind: "boolean"; readonly value: boolean }
  | { readonly kind: "identifier"; readonly id: Identifier };

const KEYWORDS = new Set(["AND", "OR", "NOT", "LIKE", "IN", "IS", "NULL", "ESCAPE", "UTC"]);
const RESERVED = new Set(["and", "or", "not", "like", "in", "is", "null", "escape", "true", "false", "exists", "nan", "inf", "lower", "upper", "left", "right", "substring", "utc", "date"]);
const PROPERTY_FIELDS = new Set(["message_id", "user_id", "to", "subject", "reply_to", "correlation_id", "content_type", "content_encoding", "absolute_expiry_time", "creation_time", "group_id", "group_sequence", "reply_to_group_id"]);
const OPERATORS = ["<>", "!=", ">=", "<=", "=", ">", "<", "+", "-", "*", "/", "%", "(", ")", ","];

// The lexer's patterns, anchored with the sticky flag; run once per filter, at attach.
const WHITESPACE = /[ \t\f\n\r]+/y;
const FLOAT = /[0-9]+\.[0-9]+(E[+-]?[0-9]+)?/y;
const INT = /[0-9]+/y;
const BINARY = /0x(?:[0-9A-F]{2})+/y;
const SECTION_ID = /[a-zA-Z][a-zA-Z_-]*\.[a-zA-Z][a-zA-Z0-9_]*/y;
const REGULAR_ID = /[a-zA-Z][a-zA-Z0-9_]*/y;
const DELIMITED_ID = /\[(?:[^[\]]|\[\[|\]\])*\]/y;
const QUOTED = /'(?:[^']|'')*'|"(?:[^"]|"")*"/y;

function at(re: RegExp, s: string, i: number): string | null {
  re.lastIndex = i;
  const m = re.exec(s);
  return m === null ? null : m[0];
}

export const isControlChar = (c: number): boolean => c < 32 || c === 127;

function sectionIdentifier(text: string): Identifier {
  const dot = text.indexOf(".");
  const prefix = text.slice(0, dot);
  const name = text.slice(dot + 1);
  if ((prefix === "header" || prefix === "h") && name === "priority") return { section: "header", field: name };
  if ((prefix === "properties" || prefix === "p") && PROPERTY_FIELDS.has(name)) return { section: "properties", field: name };
  if (prefix === "application_properties" || prefix === "a") return { section: "application-properties", key: name };
  throw new SqlSyntaxError(`unsupported field name ${text}`);
}

/** The expression's tokens; throws SqlSyntaxError. */
export function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const ws = at(WHITESPACE, sql, i);
    if (ws !== null) {
      i += ws.length;
      continue;
    }
    // The longest match wins (leex); among equally long ones the first rule: keywords, then the rest.
    const candidates: Array<[string, () => Token]> = [];
    const word = at(REGULAR_ID, sql, i);
    const section = at(SECTION_ID, sql, i);
    const float = at(FLOAT, sql, i);
    const int = at(INT, sql, i);
    const binary = at(BINARY, sql, i);
    const quoted = at(QUOTED, sql, i);
    const delimited = at(DELIMITED_ID, sql, i);
    const op = OPERATORS.find((o) => sql.startsWith(o, i));
    if (word !== null) {
      candidates.push([
        word,
        (): Token => {
          if (KEYWORDS.has(word)) return { kind: "op", op: word };
          if (word === "TRUE" || word === "FALSE") return { kind: "boolean", value: word === "TRUE" };
          if (RESERVED.has(word.toLowerCase())) throw new SqlSyntaxError(`unsupported identifier ${word}`);
          return { kind: "identifier", id: { section: "application-properties", key: word } };
        },
      ]);
    }
    if (op !== undefined) candidates.push([op, () => ({ kind: "op", op: op === "!=" ? "<>" : op })]);
    if (int !== null) candidates.push([int, () => ({ kind: "int", value: Number(int) })]);
    if (float !== null) candidates.push([float, () => ({ kind: "float", value: Number(float) })]);
    if (quoted !== null) candidates.push([quoted, () => ({ kind: "string", value: quoted.slice(1, -1).split(quoted[0]! + quoted[0]!).join(quoted[0]!) })]);
    if (binary !== null) candidates.push([binary, () => ({ kind: "binary", value: Buffer.from(binary.slice(2), "hex") })]);
    if (section !== null) candidates.push([section, () => ({ kind: "identifier", id: sectionIdentifier(section) })]);
    if (delimited !== null) {
      candidates.push([
        delimited,
        (): Token => {
          const inner = delimited.slice(1, -1);
          for (let k = 0; k < inner.length; k++) if (isControlChar(inner.charCodeAt(k))) throw new SqlSyntaxError("a control character in a delimited identifier");
          return { kind: "identifier", id: { section: "application-properties", key: inner.split("[[").join("[").split("]]").join("]") } };
        },
      ]);
    }
    if (candidates.length === 0) throw new SqlSyntaxError(`illegal character ${JSON.stringify(sql[i])} at ${i}`);
    let best = candidates[0]!;
    for (const c of candidates) if (c[0].length > best[0].length) best = c;
    out.push(best[1]());
    i += best[0].length;
  }
  return out;
}
