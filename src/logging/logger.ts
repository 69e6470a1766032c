/**
 * Structured logs on stderr: one JSON object per line with time, level, message and fields.
 * No global logger: the composition root makes one and passes it down.
 */
export type LogLevel = "debug" | "info" | "warn" | "error";
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function isLogLevel(s: string): s is LogLevel {
  return Object.hasOwn(RANK, s);
}

export function createLogger(level: LogLevel | "silent", sink: (line: string) => void = (l) => process.stderr.write(l), base: Record<string, unknown> = {}): Logger {
  const min = level === "silent" ? Infinity : RANK[level];
  const log = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (RANK[lvl] < min) return;
    sink(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...base, ...fields }, jsonSafe)}\n`);
  };
  return {
    debug: (m, f) => log("debug", m, f),
    info: (m, f) => log("info", m, f),
    warn: (m, f) => log("warn", m, f),
    error: (m, f) => log("error", m, f),
    child: (fields) => createLogger(level, sink, { ...base, ...fields }),
  };
}

function jsonSafe(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}
