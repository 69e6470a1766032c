/**
 * How a log event becomes a line. JSON lines (one object per line: time, level, msg, fields) are
 * for files and log shippers; text lines are for people at a terminal:
 *
 *   2026-11-29 01:20:03.123 [info] Coney started amqp_port=5672 http_port=15672 data_dir=./coney-data
 *
 * A field's value is written bare when it needs no quoting, else as JSON; an error's stack
 * follows its event line, indented, so the line itself stays one event. Colours (the level)
 * only when the line goes to a terminal. "auto", the default, picks text on a terminal and
 * JSON elsewhere (RabbitMQ's log.console.formatter = plaintext | json chooses explicitly).
 */
export type LogFormat = "json" | "text";
export type LogFormatChoice = LogFormat | "auto";

export type Formatter = (time: Date, level: string, msg: string, fields: Record<string, unknown>) => string;

export function isLogFormatChoice(s: string): s is LogFormatChoice {
  return s === "json" || s === "text" || s === "auto";
}

/** The format a choice means for a sink that is (or is not) a terminal. */
export function resolveLogFormat(choice: LogFormatChoice, terminal: boolean): LogFormat {
  return choice === "auto" ? (terminal ? "text" : "json") : choice;
}

export function formatterFor(format: LogFormat, colours: boolean): Formatter {
  return format === "json" ? jsonLine : (time, level, msg, fields) => textLine(time, level, msg, fields, colours);
}

export function jsonLine(time: Date, level: string, msg: string, fields: Record<string, unknown>): string {
  return `${JSON.stringify({ time: time.toISOString(), level, msg, ...fields }, jsonSafe)}\n`;
}

const COLOUR: Readonly<Record<string, string>> = { debug: "\x1b[90m", info: "\x1b[32m", warn: "\x1b[33m", error: "\x1b[31m" };
const RESET = "\x1b[0m";

export function textLine(time: Date, level: string, msg: string, fields: Record<string, unknown>, colours: boolean): string {
  const tag = colours ? `${COLOUR[level] ?? ""}[${level}]${RESET}` : `[${level}]`;
  let line = `${time.toISOString().replace("T", " ").slice(0, 23)} ${tag} ${msg}`;
  let stacks = "";
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (value === undefined) continue;
    if (value instanceof Error) {
      line += ` ${key}=${bare(value.message)}`;
      if (value.stack !== undefined) stacks += `\n  ${value.stack.split("\n").slice(1).map((s) => s.trim()).join("\n  ")}`;
      continue;
    }
    line += ` ${key}=${typeof value === "string" ? bare(value) : JSON.stringify(value, jsonSafe)}`;
  }
  return `${line}${stacks}\n`;
}

/** A string as is when it reads unambiguously after `key=`, else quoted as JSON. */
function bare(s: string): string {
  if (s === "") return '""';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // space, quote, '=' and control characters would blur where the value ends
    if (c <= 0x20 || c === 0x22 || c === 0x3d || c === 0x7f) return JSON.stringify(s);
  }
  return s;
}

export function jsonSafe(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}
