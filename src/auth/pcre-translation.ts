/**
 * PCRE syntax → JavaScript RegExp syntax, for the permission, topic-permission and policy
 * patterns RE2 refuses (look-ahead, look-behind, backreferences). RabbitMQ compiles these with
 * Erlang's `re` (PCRE); JavaScript's engine has the same backtracking constructs, so most of
 * PCRE passes unchanged. What differs is rewritten here, and what JavaScript cannot express
 * (atomic groups, possessive quantifiers, recursion, inline flags past the start, \K, \G) is
 * refused with the construct named, never guessed at.
 *
 * Pure: no engine runs here (permission-pattern.ts decides which engine evaluates, and how
 * long it may take).
 */

export interface JsPattern {
  readonly source: string;
  readonly flags: string;
}

/** A construct PCRE has and JavaScript cannot express. */
export class UnsupportedPcreError extends Error {}

/** A pattern PCRE itself refuses although JavaScript would take it (its text is PCRE's). */
export class InvalidPcreError extends Error {}

/** PCRE's POSIX classes (`[[:alpha:]]`), as members of a JavaScript class. */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alpha: "a-zA-Z",
  digit: "0-9",
  alnum: "a-zA-Z0-9",
  upper: "A-Z",
  lower: "a-z",
  space: "\\t\\n\\v\\f\\r ",
  blank: "\\t ",
  punct: "!-\\/:-@\\[-`{-~",
  xdigit: "0-9A-Fa-f",
  word: "\\w",
  cntrl: "\\x00-\\x1f\\x7f",
  print: "\\x20-\\x7e",
  graph: "\\x21-\\x7e",
};

/** Escapes PCRE has and JavaScript spells otherwise (outside a class). */
const ESCAPES: Readonly<Record<string, string>> = {
  A: "^",
  z: "$",
  Z: "(?=\\n?$)",
  h: "[\\t \\xa0]",
  H: "[^\\t \\xa0]",
  e: "\\x1b",
  a: "\\x07",
  R: "(?:\\r\\n|[\\n\\v\\f\\r\\x85])",
};

/** Escapes with no JavaScript meaning: refused by name. */
const REFUSED_ESCAPES: Readonly<Record<string, string>> = {
  K: "\\K (reset match start)",
  G: "\\G (first matching position)",
  X: "\\X (extended grapheme)",
  C: "\\C (single byte)",
};

/** Translates a PCRE pattern; throws UnsupportedPcreError naming what JavaScript cannot express. */
export function pcreToJs(pcre: string): JsPattern {
  let i = 0;
  let flags = "";
  // Leading inline options, as in `(?i)^amq\.`: JavaScript takes them as flags.
  const leading = /^\(\?([ims]+)\)/.exec(pcre);
  if (leading !== null) {
    flags = [...new Set(leading[1])].join("");
    i = leading[0].length;
  }
  let out = "";
  let inClass = false;
  let afterQuantifier = false;
  // Open groups, each true when it is a look-behind: PCRE wants those of fixed length
  // (JavaScript would take any), so a quantifier inside one is refused as PCRE refuses it.
  const groups: boolean[] = [];
  let behind = 0;
  while (i < pcre.length) {
    const c = pcre[i]!;
    if (c === "\\") {
      const [text, used] = escapeAt(pcre, i, inClass);
      out += text;
      i += used;
      afterQuantifier = false;
      continue;
    }
    if (inClass) {
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(pcre.slice(i));
      if (posix !== null) {
        const members = POSIX_CLASSES[posix[2]!];
        if (members === undefined || posix[1] === "^") throw new UnsupportedPcreError(`the POSIX class ${posix[0]}`);
        out += members;
        i += posix[0].length;
        continue;
      }
      if (c === "]") inClass = false;
      out += c;
      i++;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      i++;
      // A leading `]` (or `^]`) is a literal in PCRE; JavaScript needs it escaped.
      if (pcre[i] === "^") {
        out += "^";
        i++;
      }
      if (pcre[i] === "]") {
        out += "\\]";
        i++;
      }
      afterQuantifier = false;
      continue;
    }
    if (c === "(" && pcre[i + 1] === "?") {
      const [text, used] = groupAt(pcre, i);
      out += text;
      i += used;
      afterQuantifier = false;
      if (text.startsWith("(")) {
        const lookBehind = text === "(?<=" || text === "(?<!";
        groups.push(lookBehind);
        if (lookBehind) behind++;
      }
      continue;
    }
    if (c === "(") groups.push(false);
    if (c === ")" && groups.pop() === true) behind--;
    if (c === "+" && afterQuantifier) throw new UnsupportedPcreError("possessive quantifiers (such as a*+)");
    const quantifier = c === "*" || c === "+" || c === "?" || (c === "{" && /^\{\d*,/.test(pcre.slice(i)));
    if (quantifier && behind > 0) throw new InvalidPcreError("look-behind assertion is not fixed length");
    afterQuantifier = c === "*" || c === "+" || c === "?" || c === "}";
    out += c;
    i++;
  }
  return { source: out, flags };
}

/** The JavaScript for the escape at `i`, and how many characters of `pcre` it used. */
function escapeAt(pcre: string, i: number, inClass: boolean): [string, number] {
  const next = pcre[i + 1];
  if (next === undefined) throw new UnsupportedPcreError("a trailing backslash");
  if (next === "Q") {
    // \Q…\E quotes everything between as literals.
    const end = pcre.indexOf("\\E", i + 2);
    const literal = pcre.slice(i + 2, end === -1 ? pcre.length : end);
    return [literal.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&"), (end === -1 ? pcre.length : end + 2) - i];
  }
  if (next === "E") return ["", 2];
  if (next === "x" && pcre[i + 2] === "{") {
    const close = pcre.indexOf("}", i + 3);
    const code = close === -1 ? NaN : parseInt(pcre.slice(i + 3, close), 16);
    if (!(code >= 0 && code <= 0xffff)) throw new UnsupportedPcreError(`the code point escape ${pcre.slice(i, close + 1)}`);
    return [`\\u${code.toString(16).padStart(4, "0")}`, close + 1 - i];
  }
  const refused = REFUSED_ESCAPES[next];
  if (refused !== undefined) throw new UnsupportedPcreError(refused);
  const rewritten = inClass ? undefined : ESCAPES[next];
  return [rewritten ?? `\\${next}`, 2];
}

/** The JavaScript for the `(?` group opening at `i`, and how many characters it used. */
function groupAt(pcre: string, i: number): [string, number] {
  const rest = pcre.slice(i + 2);
  for (const kept of [":", "=", "!", "<=", "<!"]) if (rest.startsWith(kept)) return [`(?${kept}`, 2 + kept.length];
  if (rest.startsWith("#")) {
    const close = pcre.indexOf(")", i);
    if (close === -1) throw new UnsupportedPcreError("an unterminated comment");
    return ["", close + 1 - i];
  }
  const named = /^(?:P?<([A-Za-z_][A-Za-z0-9_]*)>|'([A-Za-z_][A-Za-z0-9_]*)')/.exec(rest);
  if (named !== null) return [`(?<${named[1] ?? named[2]}>`, 2 + named[0].length];
  const backref = /^P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest);
  if (backref !== null) return [`\\k<${backref[1]}>`, 2 + backref[0].length];
  if (rest.startsWith(">")) throw new UnsupportedPcreError("atomic groups (?>…)");
  if (rest.startsWith("|")) throw new UnsupportedPcreError("branch reset groups (?|…)");
  if (/^(?:R|[+-]?\d|P>|&)/.test(rest)) throw new UnsupportedPcreError("recursion and subroutine calls");
  if (rest.startsWith("(")) throw new UnsupportedPcreError("conditional groups (?(…)…)");
  throw new UnsupportedPcreError("inline options past the start of the pattern");
}
