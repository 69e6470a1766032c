/**
 * Structured logs on stderr: one line per event with time, level, message and fields, as JSON
 * or as text for a terminal (log-format.ts). No global logger: the composition root makes one and passes it down; child loggers share
 * their parent's sink, rate limit and counters.
 *
 * Two faults the logger absorbs, so that logging never takes the broker down or drowns it:
 * - Floods: a warn/error line identical to one logged less than `windowMs` (10 s) ago (same
 *   level, message and fields) is not written but counted; when the window ends one line says
 *   "<message> (N more in the last 10 s)" with `repeated: N`.
 * - A log that cannot be written (stderr on a full disk, a closed pipe): the line is dropped and
 *   counted, never thrown; the next line that does get written is preceded by a warning that
 *   says how many were lost. `stats()` tells both counts.
 */
import { fstatSync, writeSync } from "node:fs";
import { isatty } from "node:tty";
import { formatterFor, jsonSafe, resolveLogFormat, type Formatter, type LogFormatChoice } from "./log-format.js";

export type LogLevel = "debug" | "info" | "warn" | "error";
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LogStats {
  /** Lines that could not be written. */
  readonly dropped: number;
  /** Repeats held back by the rate limit. */
  readonly suppressed: number;
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
  stats(): LogStats;
}

export interface LoggerOptions {
  /** The rate limit's window (ms); identical warn/error lines within it are counted, not written. */
  windowMs?: number;
  now?: () => number;
  /** Text or JSON lines; "auto" (default): text when stderr is a terminal. A given sink gets JSON unless told. */
  format?: LogFormatChoice;
}

export function isLogLevel(s: string): s is LogLevel {
  return Object.hasOwn(RANK, s);
}

/** Distinct lines held by the rate limit at once; beyond it new lines are not limited (memory stays bounded). */
const MAX_WINDOWS = 1000;

interface Window {
  readonly started: number;
  repeats: number;
  readonly level: LogLevel;
  readonly msg: string;
  readonly fields: Record<string, unknown>;
}

interface SharedState {
  readonly sink: (line: string) => void;
  readonly format: Formatter;
  readonly windowMs: number;
  readonly now: () => number;
  readonly windows: Map<string, Window>;
  dropped: number;
  /** Dropped lines not yet reported in the log itself. */
  unreported: number;
  suppressed: number;
}

export function createLogger(level: LogLevel | "silent", sink?: (line: string) => void, base: Record<string, unknown> = {}, options: LoggerOptions = {}): Logger {
  // Colours only where a person reads: stderr itself, on a terminal.
  const terminal = sink === undefined && isatty(2);
  const format = resolveLogFormat(options.format ?? (sink === undefined ? "auto" : "json"), terminal);
  const state: SharedState = {
    sink: sink ?? stderrSink(),
    format: formatterFor(format, terminal),
    windowMs: options.windowMs ?? 10_000,
    now: options.now ?? Date.now,
    windows: new Map(),
    dropped: 0,
    unreported: 0,
    suppressed: 0,
  };
  return makeLogger(level === "silent" ? Infinity : RANK[level], state, base);
}

function makeLogger(min: number, state: SharedState, base: Record<string, unknown>): Logger {
  const log = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (RANK[lvl] < min) return;
    const all = { ...base, ...fields };
    if (RANK[lvl] >= RANK.warn && held(state, JSON.stringify([lvl, msg, all], jsonSafe), lvl, msg, all)) return;
    write(state, lvl, msg, all);
  };
  return {
    debug: (m, f) => log("debug", m, f),
    info: (m, f) => log("info", m, f),
    warn: (m, f) => log("warn", m, f),
    error: (m, f) => log("error", m, f),
    child: (fields) => makeLogger(min, state, { ...base, ...fields }),
    stats: () => ({ dropped: state.dropped, suppressed: state.suppressed }),
  };
}

/** True when the event (`key`: its level, message and fields) repeats one written less than a window ago (it is counted instead). */
function held(state: SharedState, body: string, level: LogLevel, msg: string, fields: Record<string, unknown>): boolean {
  const now = state.now();
  const w = state.windows.get(body);
  if (w !== undefined && now - w.started < state.windowMs) {
    if (w.repeats++ === 0) {
      // One timer per line that actually repeats: it writes the count when the window ends.
      const t = setTimeout(() => endWindow(state, body), w.started + state.windowMs - now);
      t.unref();
    }
    state.suppressed++;
    return true;
  }
  if (w !== undefined) endWindow(state, body);
  if (state.windows.size < MAX_WINDOWS) state.windows.set(body, { started: now, repeats: 0, level, msg, fields });
  return false;
}

function endWindow(state: SharedState, key: string): void {
  const w = state.windows.get(key);
  if (w === undefined) return;
  state.windows.delete(key);
  if (w.repeats === 0) return;
  const seconds = Math.round(state.windowMs / 1000);
  write(state, w.level, `${w.msg} (${w.repeats} more in the last ${seconds} s)`, { ...w.fields, repeated: w.repeats });
}

function write(state: SharedState, level: LogLevel, msg: string, fields: Record<string, unknown>): void {
  const time = new Date();
  try {
    if (state.unreported > 0) {
      state.sink(state.format(time, "warn", "log lines were dropped: the log could not be written", { dropped: state.unreported }));
      state.unreported = 0;
    }
    state.sink(state.format(time, level, msg, fields));
  } catch {
    state.dropped++;
    state.unreported++;
  }
}

/**
 * Writes to stderr without ever throwing. A regular file is written with writeSync on fd 2: a
 * stream that failed once (ENOSPC) stays wedged and buffers every later line in memory, while
 * writeSync fails line by line and works again once there is space. A pipe or terminal goes
 * through process.stderr, whose asynchronous errors (EPIPE) are counted by the caller's catch
 * of the next line, and never reach the process as an unhandled 'error' event.
 */
function stderrSink(): (line: string) => void {
  let isFile = false;
  try {
    isFile = fstatSync(2).isFile();
  } catch {
    isFile = false;
  }
  if (isFile) {
    return (line) => {
      const buf = Buffer.from(line, "utf8");
      for (let off = 0; off < buf.length; ) off += writeSync(2, buf, off, buf.length - off);
    };
  }
  let broken: unknown = null;
  process.stderr.on("error", (err) => {
    broken = err;
  });
  return (line) => {
    if (broken !== null) throw broken;
    process.stderr.write(line);
  };
}
