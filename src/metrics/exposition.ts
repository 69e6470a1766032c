/**
 * The Prometheus text exposition format (version 0.0.4), written directly into one string.
 *
 * Why not prom-client: a scrape of 10,000 queues is ~200,000 samples rebuilt from live state each
 * time; prom-client keeps a registry of label sets that would have to be reset and refilled per
 * scrape, hashing every label set (see README, Prometheus metrics, for the measurement). Here a
 * family is a header and its samples are appended as they are read, so a scrape allocates little
 * more than the text it returns.
 */
export type MetricType = "counter" | "gauge" | "untyped" | "histogram";

export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** `name="value"` with the format's escapes (backslash, double quote, line feed). */
export function labelPair(name: string, value: string): string {
  return `${name}="${escapeLabelValue(value)}"`;
}

const NEEDS_ESCAPE = /[\\"\n]/;

export function escapeLabelValue(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function escapeHelp(help: string): string {
  return help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

export function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  return String(v);
}

/** What goes between a sample's name and its value: `{a="x"} `, or a space when there are no labels. */
export function labelBlock(labels: string): string {
  return labels === "" ? " " : `{${labels}} `;
}

/** Lines joined into one block at a time. */
const BLOCK_LINES = 4096;

/**
 * Accumulates one response. Families must be declared before their samples, once each. Lines
 * are joined a block at a time, so each line's string dies young: appending 200,000 lines to one
 * string instead kept every piece of the rope alive until the end and spent most of a per-object
 * scrape in the garbage collector, and encoding each line into a Buffer cost a native call per line.
 */
export class Exposition {
  private readonly blocks: string[] = [];
  private lines: string[] = [];

  family(name: string, type: MetricType, help: string): void {
    // RabbitMQ writes TYPE before HELP; both orders are valid.
    this.add(`# TYPE ${name} ${type}\n# HELP ${name} ${escapeHelp(help)}\n`);
  }

  /** `labels` is pre-rendered (`a="x",b="y"`, see labelPair), "" for none. */
  sample(name: string, labels: string, value: number): void {
    this.add(name + labelBlock(labels) + formatValue(value) + "\n");
  }

  /** As sample(), with the labels already in their block (labelBlock): one object's block serves all its families. */
  sampleInBlock(name: string, block: string, value: number): void {
    this.add(name + block + formatValue(value) + "\n");
  }

  /** A series read back as written (`name{…}` or `name`: exposition-parse.ts) and its value. */
  seriesSample(series: string, value: number): void {
    this.add(series + " " + formatValue(value) + "\n");
  }

  /** The response body. */
  text(): string {
    if (this.lines.length > 0) this.blocks.push(this.lines.join(""));
    this.lines = [];
    return this.blocks.join("");
  }

  private add(line: string): void {
    this.lines.push(line);
    if (this.lines.length === BLOCK_LINES) {
      this.blocks.push(this.lines.join(""));
      this.lines = [];
    }
  }
}
