/**
 * Reading back a text exposition that Coney wrote (exposition.ts): families in order, each with
 * its type, help and samples (name, pre-rendered label block, value). The aggregate scrape
 * (cluster-sum.ts) reads every node's /metrics this way: the nodes run the same renderer, so one
 * series has byte-identical labels on every node and the label block is the series' key.
 *
 * Only what exposition.ts writes is read: `# TYPE` before `# HELP`, one sample per line, no
 * timestamps. A line it cannot read is an error, never skipped: a sum over a half-read node would
 * be a wrong figure.
 */
import type { MetricType } from "./exposition.js";

export interface ParsedSample {
  /**
   * The series as written: the sample's own name (a histogram's `_bucket`, `_sum`, `_count`
   * included) and its label block, `name{a="x",b="y"}` (escapes kept), or `name` alone.
   */
  readonly series: string;
  readonly value: number;
}

export interface ParsedFamily {
  readonly name: string;
  readonly type: MetricType;
  help: string;
  readonly samples: ParsedSample[];
}

const TYPES: ReadonlySet<string> = new Set(["counter", "gauge", "untyped", "histogram"]);
/** A histogram's sample names after its family's. */
const SUFFIXES: ReadonlySet<string> = new Set(["_bucket", "_sum", "_count"]);

export function parseExposition(text: string): ParsedFamily[] {
  const families: ParsedFamily[] = [];
  let current: ParsedFamily | null = null;
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf("\n", at);
    if (end < 0) end = text.length;
    const line = text.slice(at, end);
    at = end + 1;
    if (line === "") continue;
    if (line.startsWith("# TYPE ")) {
      const [name, type] = line.slice(7).split(" ");
      if (name === undefined || type === undefined || !TYPES.has(type)) throw new Error(`unreadable exposition line: ${line}`);
      current = { name, type: type as MetricType, help: "", samples: [] };
      families.push(current);
      continue;
    }
    if (line.startsWith("# HELP ")) {
      const rest = line.slice(7);
      const space = rest.indexOf(" ");
      if (current !== null && rest.slice(0, space) === current.name) current.help = unescapeHelp(rest.slice(space + 1));
      continue;
    }
    if (line.startsWith("#")) continue;
    if (current === null) throw new Error(`a sample before any family: ${line}`);
    current.samples.push(parseSample(line, current.name));
  }
  return families;
}

/**
 * The value follows the line's last space (exposition.ts writes no timestamps; a label value may
 * hold spaces, all before it). The series is kept as written, not split into labels: the sum keys
 * on it (cluster-sum.ts), which keeps reading back a per-object scrape cheap.
 */
function parseSample(line: string, family: string): ParsedSample {
  const space = line.lastIndexOf(" ");
  const series = space > 0 ? line.slice(0, space) : "";
  const brace = series.indexOf("{");
  const name = brace < 0 ? series : series.slice(0, brace);
  const ofFamily = name === family || (name.startsWith(family) && SUFFIXES.has(name.slice(family.length)));
  if (!ofFamily || (brace >= 0 && !series.endsWith("}"))) throw new Error(`unreadable sample: ${line}`);
  return { series, value: parseValue(line.slice(space + 1), line) };
}

function parseValue(text: string, line: string): number {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (text === "NaN") return NaN;
  const v = Number(text);
  if (text === "" || Number.isNaN(v)) throw new Error(`unreadable value: ${line}`);
  return v;
}

function unescapeHelp(help: string): string {
  return help.indexOf("\\") < 0 ? help : help.replace(/\\(\\|n)/g, (_m, c: string) => (c === "n" ? "\n" : "\\"));
}
