/**
 * Permission patterns: the configure/write/read regular expressions of a (user, vhost) pair.
 *
 * RabbitMQ matches them unanchored with PCRE (`"foo"` matches `"xfoo"`; `""` matches only the
 * empty name... in practice nothing). Patterns run on every client operation, so a user-supplied
 * pattern must not be able to take exponential time: we compile with RE2 semantics (re2js, a
 * linear-time engine in plain JavaScript) and refuse constructs that need backtracking
 * (backreferences, lookaround) with a clear error, instead of running them.
 */
import { RE2JS } from "re2js";

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
    let re: RE2JS;
    try {
      re = RE2JS.compile(source);
    } catch (err) {
      throw new InvalidPatternError(source, err instanceof Error ? err.message : String(err));
    }
    matcher = { source, matches: (name) => re.matcher(name).find() };
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(source, matcher);
  return matcher;
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
