/**
 * LIKE patterns of AMQP SQL filter expressions, compiled once when the filter is taken, as
 * RabbitMQ 4.2 compiles them: `%` matches any run of characters (as few as possible), `_` one
 * character, the ESCAPE character makes the next one literal. A pattern without wildcards is an
 * equality test, one with a single `%` a prefix and/or suffix test (no regular expression on the
 * per-message path); only the rest become a regular expression. A control character in the
 * pattern, or an escape character at its end, makes the filter invalid (SqlSyntaxError).
 */
import { isControlChar, SqlSyntaxError } from "./sql-filter-lexer.js";

export type LikePattern =
  | { readonly kind: "exact"; readonly text: string }
  | { readonly kind: "affix"; readonly prefix: string; readonly suffix: string }
  | { readonly kind: "regex"; readonly re: RegExp };

/** The characters a regular expression gives a meaning (escaped with a backslash, which the "u" flag allows for these only). */
const REGEX_SPECIAL = new Set([..."\\^$.|?*+()[]{}/"]);

function literal(c: string): string {
  if (isControlChar(c.codePointAt(0)!)) throw new SqlSyntaxError("a control character in a LIKE pattern");
  return c;
}

export function compileLike(pattern: string, escape: string | null): LikePattern {
  const chars = [...pattern];
  // One scan: the literal text, and where the single % lies (-1: none; "regex": more wildcards).
  let text = "";
  let percent: number | "regex" = -1;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === escape) {
      if (i + 1 === chars.length) throw new SqlSyntaxError("an ESCAPE character at the end of a LIKE pattern");
      text += literal(chars[++i]!);
    } else if (c === "_" || (c === "%" && percent !== -1)) {
      percent = "regex";
      break;
    } else if (c === "%") {
      percent = text.length;
    } else {
      text += literal(c);
    }
  }
  if (percent === -1) return { kind: "exact", text };
  if (percent !== "regex") return { kind: "affix", prefix: text.slice(0, percent), suffix: text.slice(percent) };
  let source = "";
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === escape) {
      if (i + 1 === chars.length) throw new SqlSyntaxError("an ESCAPE character at the end of a LIKE pattern");
      const next = literal(chars[++i]!);
      source += REGEX_SPECIAL.has(next) ? `\\${next}` : next;
    } else if (c === "%") {
      source += ".*?";
    } else if (c === "_") {
      source += ".";
    } else {
      source += REGEX_SPECIAL.has(literal(c)) ? `\\${c}` : c;
    }
  }
  return { kind: "regex", re: new RegExp(`^${source}$`, "u") };
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Whether the string (or a binary's bytes) matches; undefined for a binary that is no UTF-8 text (unknown, as RabbitMQ 4.2). */
export function matchLike(subject: string | Buffer, p: LikePattern): boolean | undefined {
  let s: string;
  if (typeof subject === "string") s = subject;
  else {
    try {
      s = STRICT_UTF8.decode(subject);
    } catch {
      return p.kind === "regex" ? undefined : false;
    }
  }
  switch (p.kind) {
    case "exact":
      return s === p.text;
    case "affix":
      return s.length >= p.prefix.length + p.suffix.length && s.startsWith(p.prefix) && s.endsWith(p.suffix);
    case "regex":
      return p.re.test(s);
  }
}
