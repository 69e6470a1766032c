/**
 * Permission patterns: the configure/write/read regular expressions of a (user, vhost) pair.
 *
 * RabbitMQ matches them unanchored with PCRE (`"foo"` matches `"xfoo"`; `""` matches only the
 * empty name... in practice nothing). Patterns run on every client operation, so a user-supplied
 * pattern must not be able to take exponential time. Two engines, chosen per pattern:
 * - RE2 (re2js, linear time in plain JavaScript) for every pattern it accepts — nearly all;
 * - for what only a backtracking engine can run (look-ahead such as `^(?!amq\.).*`, look-behind,
 *   backreferences), the pattern translated from PCRE to JavaScript (pcre-translation.ts) and
 *   evaluated under a time bound (bounded-regexp.ts): a runaway match counts as no match, as
 *   PCRE's match limit makes it for RabbitMQ.
 * A pattern neither can run gets a clear error naming the construct (HTTP 400).
 */
import { RE2JS } from "re2js";
import { BoundedRegExp } from "./bounded-regexp.js";
import { InvalidPcreError, pcreToJs, UnsupportedPcreError } from "./pcre-translation.js";

export interface PatternMatcher {
  readonly source: string;
  matches(name: string): boolean;
}

export class InvalidPatternError extends Error {
  constructor(readonly pattern: string, detail: string) {
    super(`invalid regular expression '${pattern}': ${detail}`);
  }
}

const cache = new Map<string, PatternMatcher>();
const CACHE_LIMIT = 10_000;

/** Compiles (or returns the cached compilation of) a permission pattern; throws InvalidPatternError. */
export function compilePattern(source: string): PatternMatcher {
  const cached = cache.get(source);
  if (cached) return cached;
  let matcher: PatternMatcher;
  if (source === "" || source === "^$") {
    // Both mean "only the empty name" (the default exchange); no engine needed.
    matcher = { source, matches: (name) => name === "" };
  } else if (source === ".*") {
    matcher = { source, matches: () => true };
  } else {
    const linear = compileWithRe2(source);
    matcher = typeof linear === "string" ? compileBounded(source, linear) : linear;
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(source, matcher);
  return matcher;
}

/** The linear-time compilation, or RE2's reason for refusing the pattern (the bounded engine may take it). */
function compileWithRe2(source: string): PatternMatcher | string {
  let re: RE2JS;
  try {
    re = RE2JS.compile(source);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  return { source, matches: (name) => re.matcher(name).find() };
}

/**
 * The backtracking compilation under a time bound; throws InvalidPatternError when neither
 * engine can run it: naming the PCRE construct JavaScript lacks, else in RE2's words (PCRE's
 * own, such as "missing closing )").
 */
function compileBounded(source: string, re2Reason: string): PatternMatcher {
  let re: RegExp;
  try {
    const js = pcreToJs(source);
    re = new RegExp(js.source, js.flags);
  } catch (err) {
    const detail = err instanceof UnsupportedPcreError ? `${err.message} not supported` : err instanceof InvalidPcreError ? err.message : re2Reason;
    throw new InvalidPatternError(source, detail);
  }
  const bounded = new BoundedRegExp(re);
  return { source, matches: (name) => bounded.test(name) };
}

/** Validates a pattern without keeping it; returns the error text or null. */
export function patternError(source: string): string | null {
  try {
    compilePattern(source);
    return null;
  } catch (err) {
    return err instanceof InvalidPatternError ? err.message : String(err);
  }
}
