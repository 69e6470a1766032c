/**
 * Compares what Coney answered with what RabbitMQ answered to the same step. Statuses, the
 * compared headers, error bodies (`error` exactly; `reason` equal or RabbitMQ's reason followed
 * by a detail) and AMQP reply codes and texts must match; other bodies must have the same keys
 * and value types (figures that depend on timing differ in value), plus the values of the step's
 * `exact` paths. Each difference has a path so deviations.ts can accept it by name.
 */
import type { HttpStep, Outcome } from "./scenario.js";

export type DifferenceKind = "status" | "header" | "error" | "reason" | "missing-key" | "extra-key" | "type" | "value" | "missing-item" | "extra-item" | "amqp";

export interface Difference {
  readonly kind: DifferenceKind;
  /** Body path: `overview.message_stats.publish`, `[amq.direct].type`, `[0].name`; or the header name. */
  readonly path: string;
  readonly detail: string;
}

/** JSON with object keys sorted (key order carries no meaning); with `anyOrder`, arrays too. */
function canonical(v: unknown, anyOrder: boolean): string {
  if (Array.isArray(v)) {
    const items = v.map((x) => canonical(x, anyOrder));
    return `[${(anyOrder ? items.sort() : items).join(",")}]`;
  }
  if (v !== null && typeof v === "object") {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k], anyOrder)}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

const typeOf = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** `*` in a pattern stands for any run of characters, `{a,b}` for either alternative. */
export function globMatches(pattern: string, text: string): boolean {
  let re = "";
  let depth = 0;
  for (const ch of pattern) {
    if (ch === "*") re += ".*";
    else if (ch === "{") {
      re += "(?:";
      depth++;
    } else if (ch === "}" && depth > 0) {
      re += ")";
      depth--;
    }
    else if (ch === "," && depth > 0) re += "|";
    else re += ch.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`).test(text);
}

const isErrorBody = (v: unknown): v is { error: unknown; reason: unknown } =>
  v !== null && typeof v === "object" && !Array.isArray(v) && "error" in v && "reason" in v && Object.keys(v).length === 2;

/** Fields that name a list item, in the order that identifies it. */
const IDENTITY = ["vhost", "name", "user", "source", "destination", "destination_type", "routing_key", "exchange", "component"];

function identity(item: unknown, index: number): string {
  if (item === null || typeof item !== "object" || Array.isArray(item)) return String(index);
  const rec = item as Record<string, unknown>;
  const parts = IDENTITY.filter((k) => typeof rec[k] === "string").map((k) => String(rec[k]));
  return parts.length === 0 ? String(index) : parts.join("/");
}

function compareValue(expected: unknown, actual: unknown, path: string, step: HttpStep | null, out: Difference[]): void {
  const exact = step?.exact ?? [];
  const bare = path.startsWith(".") ? path.slice(1) : path;
  if (exact.some((p) => globMatches(p, bare))) {
    if (canonical(expected, step?.anyOrder === true) !== canonical(actual, step?.anyOrder === true)) out.push({ kind: "value", path: bare, detail: `RabbitMQ ${JSON.stringify(expected)}, Coney ${JSON.stringify(actual)}` });
    return;
  }
  const te = typeOf(expected);
  const ta = typeOf(actual);
  if (te !== ta) {
    out.push({ kind: "type", path: bare, detail: `RabbitMQ ${te} ${JSON.stringify(expected)?.slice(0, 80)}, Coney ${ta} ${JSON.stringify(actual)?.slice(0, 80)}` });
    return;
  }
  if (te === "array") return compareArray(expected as unknown[], actual as unknown[], path, step, out);
  if (te !== "object") return;
  const e = expected as Record<string, unknown>;
  const a = actual as Record<string, unknown>;
  for (const k of Object.keys(e)) {
    if (!(k in a)) out.push({ kind: "missing-key", path: `${bare === "" ? "" : `${bare}.`}${k}`, detail: `RabbitMQ has ${JSON.stringify(e[k])?.slice(0, 60)}` });
    else compareValue(e[k], a[k], `${path}.${k}`, step, out);
  }
  for (const k of Object.keys(a)) if (!(k in e)) out.push({ kind: "extra-key", path: `${bare === "" ? "" : `${bare}.`}${k}`, detail: `Coney has ${JSON.stringify(a[k])?.slice(0, 60)}` });
}

function compareArray(expected: unknown[], actual: unknown[], path: string, step: HttpStep | null, out: Difference[]): void {
  const bare = path.startsWith(".") ? path.slice(1) : path;
  if (expected.length === 0 && actual.length === 0) return;
  if (expected.length === 0 || actual.length === 0) {
    out.push({ kind: expected.length === 0 ? "extra-item" : "missing-item", path: `${bare}[]`, detail: `RabbitMQ has ${expected.length} items, Coney ${actual.length}` });
    return;
  }
  if (step?.items === "shape" || (expected.length === 1 && actual.length === 1) || typeOf(expected[0]) !== "object") {
    for (const [i, a] of actual.entries()) compareValue(expected[Math.min(i, expected.length - 1)], a, `${path}.[${i}]`, step, out);
    return;
  }
  const ids = expected.map((e, i) => identity(e, i));
  if (new Set(ids).size !== ids.length) {
    // Items that share an identity (several messages of one queue): compare in order.
    for (const [i, a] of actual.entries()) compareValue(expected[Math.min(i, expected.length - 1)], a, `${path}.[${i}]`, step, out);
    if (expected.length !== actual.length) out.push({ kind: actual.length < expected.length ? "missing-item" : "extra-item", path: `${bare}[]`, detail: `RabbitMQ has ${expected.length} items, Coney ${actual.length}` });
    return;
  }
  const byId = new Map(actual.map((a, i) => [identity(a, i), a]));
  const seen = new Set<string>();
  for (const [i, e] of expected.entries()) {
    const id = identity(e, i);
    seen.add(id);
    if (!byId.has(id)) out.push({ kind: "missing-item", path: `${bare}[${id}]`, detail: "RabbitMQ lists it, Coney does not" });
    else compareValue(e, byId.get(id), `${path}.[${id}]`, step, out);
  }
  for (const id of byId.keys()) if (!seen.has(id)) out.push({ kind: "extra-item", path: `${bare}[${id}]`, detail: "Coney lists it, RabbitMQ does not" });
}

export function compareOutcome(expected: Outcome, actual: Outcome, step: HttpStep | null): Difference[] {
  const out: Difference[] = [];
  if (expected.kind === "amqp" || actual.kind === "amqp") {
    const e = expected as Extract<Outcome, { kind: "amqp" }>;
    const a = actual as Extract<Outcome, { kind: "amqp" }>;
    if (e.ok !== a.ok || e.code !== a.code || e.text !== a.text) {
      out.push({ kind: "amqp", path: "", detail: `RabbitMQ ${e.ok ? "ok" : `${e.code} ${e.text}`}, Coney ${a.ok ? "ok" : `${a.code} ${a.text}`}` });
    } else if (JSON.stringify(e.value) !== JSON.stringify(a.value)) {
      out.push({ kind: "value", path: "", detail: `RabbitMQ ${JSON.stringify(e.value)}, Coney ${JSON.stringify(a.value)}` });
    }
    return out;
  }
  if (expected.status !== actual.status) out.push({ kind: "status", path: "", detail: `RabbitMQ ${expected.status}, Coney ${actual.status}` });
  for (const h of new Set([...Object.keys(expected.headers), ...Object.keys(actual.headers)])) {
    const e = expected.headers[h];
    const a = actual.headers[h];
    const same = h === "allow" ? normaliseAllow(e) === normaliseAllow(a) : e === a;
    if (!same) out.push({ kind: "header", path: h, detail: `RabbitMQ ${JSON.stringify(e)}, Coney ${JSON.stringify(a)}` });
  }
  if (isErrorBody(expected.body)) {
    if (!isErrorBody(actual.body)) {
      out.push({ kind: "error", path: "", detail: `RabbitMQ ${JSON.stringify(expected.body)}, Coney ${JSON.stringify(actual.body)?.slice(0, 200)}` });
      return out;
    }
    if (expected.body.error !== actual.body.error) out.push({ kind: "error", path: "error", detail: `RabbitMQ ${JSON.stringify(expected.body.error)}, Coney ${JSON.stringify(actual.body.error)}` });
    const er = JSON.stringify(expected.body.reason);
    const ar = JSON.stringify(actual.body.reason);
    // A detail appended after RabbitMQ's reason ("not_json: …") is allowed (issue 17).
    const reasonOk = er === ar || (typeof expected.body.reason === "string" && typeof actual.body.reason === "string" && actual.body.reason.startsWith(`${expected.body.reason}: `));
    if (!reasonOk) out.push({ kind: "reason", path: "reason", detail: `RabbitMQ ${er}, Coney ${ar}` });
    return out;
  }
  compareValue(expected.body, actual.body, "", step, out);
  return out;
}

function normaliseAllow(v: string | undefined): string | undefined {
  return v?.split(",").map((m) => m.trim().toUpperCase()).sort().join(",");
}
