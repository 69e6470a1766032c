/**
 * The chaos suite's figures (docs/CLUSTERING.md, "Guarantees under faults"): each case counts the
 * ids it had confirmed against the ids finally read back from the leader. Lost must be 0;
 * duplicates (of messages whose confirm was lost with a connection) are allowed.
 */
import type { TestContext } from "node:test";

export interface ChaosFigures {
  readonly confirmed: number;
  readonly found: number;
  readonly lost: number;
  readonly duplicates: number;
  /** Milliseconds from the fault's end (or the kill) to the first confirm after it; null when not measured. */
  readonly serveAgainMs: number | null;
  readonly [extra: string]: number | string | null;
}

/** Counts what was confirmed against what was read back, and prints one `CHAOS {…}` line. */
export function chaosFigures(t: TestContext, name: string, expected: ReadonlySet<string>, seen: ReadonlySet<string>, duplicates: number, serveAgainMs: number | null, extra: Record<string, number | string> = {}): ChaosFigures {
  const lost = [...expected].filter((e) => !seen.has(e)).length;
  const found = [...expected].filter((e) => seen.has(e)).length;
  const figures: ChaosFigures = { confirmed: expected.size, found, lost, duplicates, serveAgainMs, ...extra };
  const line = `CHAOS ${JSON.stringify({ case: name, ...figures })}`;
  t.diagnostic(line);
  console.log(line);
  return figures;
}
