/**
 * A backtracking regular expression evaluated under a time bound: the engine for permission and
 * policy patterns that RE2's linear-time engine cannot run (look-around, backreferences;
 * permission-pattern.ts). A user-supplied pattern such as `^(a+)+$` can take exponential time on
 * a backtracking engine, so each evaluation runs in a `vm` script with a timeout, which
 * interrupts a runaway match. A match that runs out of time counts as no match — as RabbitMQ's
 * `re:run` answers `nomatch` when PCRE reaches its match limit — so access is refused, never
 * granted, by a pattern too costly to decide.
 *
 * The timed run costs about 0.1 ms (the watchdog), so results are kept per name: a queue or
 * exchange name is decided once per pattern, and only names never seen before pay again.
 */
import { Script, createContext, type Context } from "node:vm";

/** How long one evaluation may take before it counts as no match. */
export const MATCH_BUDGET_MS = 50;
/** Names remembered per pattern; past it the memory starts again (a cache, not a record). */
const RESULTS_LIMIT = 4096;

const TEST = new Script("re.test(name)");

export class BoundedRegExp {
  private readonly context: Context;
  private readonly results = new Map<string, boolean>();
  /** How many evaluations ran out of time (for the log and tests). */
  exhausted = 0;

  constructor(readonly re: RegExp) {
    this.context = createContext({ re, name: "" });
  }

  test(name: string): boolean {
    const known = this.results.get(name);
    if (known !== undefined) return known;
    let matched: boolean;
    this.context.name = name;
    try {
      matched = TEST.runInContext(this.context, { timeout: MATCH_BUDGET_MS }) === true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ERR_SCRIPT_EXECUTION_TIMEOUT") throw err;
      this.exhausted++;
      matched = false;
    }
    if (this.results.size >= RESULTS_LIMIT) this.results.clear();
    this.results.set(name, matched);
    return matched;
  }
}
