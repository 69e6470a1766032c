/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), for tests and the
 * reference recorder: families with their TYPE, HELP and samples. Throws on any line it does not
 * understand, so a malformed scrape fails the test that reads it.
 */
export interface ParsedSample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

export interface ParsedFamily {
  readonly name: string;
  type: string;
  help: string;
  readonly samples: ParsedSample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( \d+)?$/;
const SUFFIXES = ["_bucket", "_sum", "_count"];

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf("=", i);
    if (eq < 0 || text[eq + 1] !== '"') throw new Error(`bad labels in: ${line}`);
    const name = text.slice(i, eq);
    let value = "";
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === "\\") {
        j++;
        value += text[j] === "n" ? "\n" : text[j];
      } else value += text[j];
    }
    if (j >= text.length) throw new Error(`unterminated label value in: ${line}`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ",") i++;
  }
  return labels;
}

function parseValue(raw: string, line: string): number {
  if (raw === "+Inf") return Infinity;
  if (raw === "-Inf") return -Infinity;
  if (raw === "NaN") return NaN;
  const n = Number(raw);
  if (Number.isNaN(n)) throw new Error(`bad value in: ${line}`);
  return n;
}

export function parseExposition(text: string): ParsedFamily[] {
  const families = new Map<string, ParsedFamily>();
  const family = (name: string): ParsedFamily => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, type: "untyped", help: "", samples: [] }));
    return f;
  };
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (line.startsWith("# TYPE ")) {
      const [name, type] = line.slice(7).split(" ");
      family(name!).type = type!;
    } else if (line.startsWith("# HELP ")) {
      const rest = line.slice(7);
      const sp = rest.indexOf(" ");
      family(sp < 0 ? rest : rest.slice(0, sp)).help = sp < 0 ? "" : rest.slice(sp + 1).replace(/\\n/g, "\n").replace(/\\\\/g, "\\");
    } else if (line.startsWith("#")) {
      continue;
    } else {
      const m = SAMPLE.exec(line);
      if (!m) throw new Error(`unparseable line: ${line}`);
      const name = m[1]!;
      let owner = families.get(name);
      if (!owner) {
        const suffix = SUFFIXES.find((s) => name.endsWith(s));
        if (suffix) owner = families.get(name.slice(0, -suffix.length));
      }
      (owner ?? family(name)).samples.push({ name, labels: m[3] ? parseLabels(m[3], line) : {}, value: parseValue(m[4]!, line) });
    }
  }
  return [...families.values()];
}

/** The samples of one family (or one histogram part) as a label-string → value map, for assertions. */
export function samplesOf(families: ParsedFamily[], sampleName: string): ParsedSample[] {
  return families.flatMap((f) => f.samples.filter((s) => s.name === sampleName));
}
