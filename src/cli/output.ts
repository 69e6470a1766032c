/**
 * What a command prints, the way rabbitmqctl prints it: a banner line on stdout (unless -q/-s or
 * a machine-readable formatter), tab-separated tables with a header row (unless -s or
 * --no-table-headers), or JSON with `--formatter json`.
 */
export type Formatter = "table" | "json";

export interface OutputOptions {
  readonly quiet: boolean;
  readonly silent: boolean;
  readonly tableHeaders: boolean;
  readonly formatter: Formatter;
}

export interface Streams {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** One table cell as rabbitmqctl's table formatter shows it. */
export function formatCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return `[${value.map(formatCell).join(", ")}]`;
  if (typeof value === "object") return Object.keys(value).length === 0 ? "[]" : JSON.stringify(value);
  return String(value);
}

export class Output {
  constructor(
    readonly options: OutputOptions,
    private readonly streams: Streams,
  ) {}

  get json(): boolean {
    return this.options.formatter === "json";
  }

  banner(lines: string | readonly string[] | null): void {
    if (lines === null || this.options.quiet || this.options.silent || this.json) return;
    for (const line of typeof lines === "string" ? [lines] : lines) this.streams.out(line + "\n");
  }

  /** A result message ("Success", "Queue was successfully deleted ..."); JSON gets {"result":"ok"}. */
  message(text: string): void {
    if (this.json) this.streams.out(JSON.stringify({ result: "ok", message: text }) + "\n");
    else this.streams.out(text + "\n");
  }

  /** An informational line after success (add_user's reminder): suppressed by -q / -s like a banner. */
  info(text: string): void {
    if (this.json) this.message(text);
    else if (!this.options.quiet && !this.options.silent) this.streams.out(text + "\n");
  }

  /** A command that succeeded with nothing to say: silent in table mode, as rabbitmqctl. */
  done(): void {
    if (this.json) this.streams.out(JSON.stringify({ result: "ok" }) + "\n");
  }

  table(columns: readonly string[], rows: readonly (readonly unknown[])[]): void {
    if (this.json) {
      const objects = rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i] ?? null])));
      this.streams.out(JSON.stringify(objects) + "\n");
      return;
    }
    let text = this.options.tableHeaders && !this.options.silent ? columns.join("\t") + "\n" : "";
    for (const r of rows) text += r.map(formatCell).join("\t") + "\n";
    this.streams.out(text);
  }

  /** Bytes that must reach stdout unchanged (export_definitions -). */
  raw(text: string): void {
    this.streams.out(text);
  }

  error(message: string): void {
    if (this.json) this.streams.err(JSON.stringify({ result: "error", message }) + "\n");
    else this.streams.err(`Error:\n${message}\n`);
  }
}
