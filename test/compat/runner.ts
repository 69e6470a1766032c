/**
 * Runs compat scenarios against one broker (RabbitMQ when recording, Coney when replaying) with
 * real clients: fetch for HTTP, amqplib for AMQP. The same code drives both, so a difference in
 * the outcomes is a difference of the brokers.
 */
import { readdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { join } from "node:path";
import amqplib, { type ChannelModel } from "amqplib";
import { isHttp, type AmqpStep, type HttpStep, type Outcome, type Scenario, type Step } from "./scenario.js";

export interface Target {
  readonly httpUrl: string;
  readonly amqpHost: string;
  readonly amqpPort: number;
}

/** Headers compared when either side sends them. */
const HEADERS = ["www-authenticate", "location", "allow"];
const POLL_DEADLINE_MS = 10_000;

type Vars = Record<string, string>;

function fill(text: string, vars: Vars): string {
  return text.replace(/\{\{(\w+)\}\}/g, (_, k: string) => {
    const v = vars[k];
    if (v === undefined) throw new Error(`scenario variable {{${k}}} was not captured`);
    return v;
  });
}

function fillDeep(value: unknown, vars: Vars): unknown {
  if (typeof value === "string") return fill(value, vars);
  if (Array.isArray(value)) return value.map((v) => fillDeep(v, vars));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillDeep(v, vars)]));
  return value;
}

export function valueAt(body: unknown, path: string): unknown {
  let v = body;
  for (const part of path.split(".")) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

export function stepLabel(step: Step): string {
  if (isHttp(step)) return `${step.http[0]} ${step.http[1]}${step.as === undefined ? "" : ` as ${step.as === null ? "nobody" : step.as.split(":")[0]}`}`;
  return `amqp ${step.conn ?? "c"} ${step.op}${"queue" in step ? ` ${step.queue}` : ""}${"exchange" in step ? ` ${step.exchange}` : ""}`;
}

async function runHttp(target: Target, step: HttpStep, vars: Vars): Promise<Outcome> {
  const [method, rawPath] = step.http;
  const path = fill(rawPath, vars);
  const credentials = step.as === undefined ? "guest:guest" : step.as === null ? null : fill(step.as, vars);
  const headers: Record<string, string> = { "content-type": "application/json", ...(step.headers ?? {}) };
  if (credentials !== null) headers["authorization"] = `Basic ${Buffer.from(credentials).toString("base64")}`;
  const body = step.raw !== undefined ? step.raw : step.body === undefined ? undefined : JSON.stringify(fillDeep(step.body, vars));
  const deadline = Date.now() + POLL_DEADLINE_MS;
  for (;;) {
    const res = await fetch(`${target.httpUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await res.text();
    let json: unknown = text;
    try {
      json = text === "" ? null : JSON.parse(text);
    } catch {
      json = { unparsed: text.slice(0, 200) };
    }
    if (step.until && !step.until(res.status, json) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    const kept: Record<string, string> = {};
    for (const h of HEADERS) {
      const v = res.headers.get(h);
      if (v !== null) kept[h] = v;
    }
    for (const [name, p] of Object.entries(step.capture ?? {})) {
      const v = valueAt(json, p);
      if (v !== undefined) vars[name] = String(v);
    }
    return { kind: "http", label: stepLabel(step), status: res.status, headers: kept, body: json };
  }
}

/** amqplib's error message ends with the server's reply text: `… with message "NOT_FOUND - …"`. */
function amqpFailure(step: Step, err: unknown): Outcome {
  const e = err as { code?: number; message?: string };
  const m = /with message "(.*)"$/s.exec(e.message ?? "");
  return { kind: "amqp", label: stepLabel(step), ok: false, ...(e.code === undefined ? {} : { code: e.code }), text: m ? m[1]! : (e.message ?? String(err)) };
}

/** A step the broker never answers fails the step, not the whole run. */
function withDeadline<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer to ${what} within ${POLL_DEADLINE_MS} ms`)), POLL_DEADLINE_MS);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** The last error each connection reported: a connection-level close carries the server's reply there. */
const connectionErrors = new WeakMap<ChannelModel, unknown>();

function runAmqp(target: Target, step: AmqpStep, conns: Map<string, ChannelModel>, vars: Vars): Promise<Outcome> {
  const conn = conns.get(step.conn ?? "c");
  return withDeadline(amqpStep(target, step, conns, vars), stepLabel(step)).catch(async (err: unknown) => {
    const bare = !/with message "/.test((err as { message?: string }).message ?? "");
    if (!bare || conn === undefined) return amqpFailure(step, err);
    // The channel may learn of the connection's close before the connection's error event fires.
    for (let i = 0; i < 20 && !connectionErrors.has(conn); i++) await new Promise((r) => setTimeout(r, 25));
    return amqpFailure(step, connectionErrors.get(conn) ?? err);
  });
}

async function amqpStep(target: Target, step: AmqpStep, conns: Map<string, ChannelModel>, vars: Vars): Promise<Outcome> {
  const id = step.conn ?? "c";
  const ok = (value?: unknown): Outcome => ({ kind: "amqp", label: stepLabel(step), ok: true, ...(value === undefined ? {} : { value }) });
  try {
    if (step.op === "open") {
      const [user, pass] = fill(step.as ?? "guest:guest", vars).split(":") as [string, string];
      const url = `amqp://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@${target.amqpHost}:${target.amqpPort}/${encodeURIComponent(step.vhost ?? "/")}`;
      const c = await amqplib.connect(url, { clientProperties: { connection_name: `compat-${id}` } });
      c.on("error", (e: unknown) => connectionErrors.set(c, e));
      conns.set(id, c);
      return ok();
    }
    const c = conns.get(id);
    if (!c) throw new Error(`connection ${id} is not open`);
    if (step.op === "close") {
      conns.delete(id);
      await c.close();
      return ok();
    }
    if (step.op === "updateSecret") {
      await c.updateSecret(Buffer.from(step.secret), "compat");
      return ok();
    }
    const ch = await c.createConfirmChannel();
    // amqplib rejects a pending confirm with a bare "channel closed": the server's reply is in
    // the channel's error event, which is what the step reports.
    let closedWith: unknown = null;
    ch.on("error", (e: unknown) => (closedWith = e));
    let value: unknown;
    switch (step.op) {
      case "declareQueue": value = (await ch.assertQueue(step.queue, step.options ?? {})).messageCount; break;
      case "checkQueue": value = (await ch.checkQueue(step.queue)).messageCount; break;
      case "deleteQueue": value = (await ch.deleteQueue(step.queue, step.options ?? {})).messageCount; break;
      case "declareExchange": await ch.assertExchange(step.exchange, step.type, step.options ?? {}); break;
      case "bindQueue": await ch.bindQueue(step.queue, step.exchange, step.routingKey, step.args ?? {}); break;
      case "bindExchange": await ch.bindExchange(step.destination, step.source, step.routingKey); break;
      case "publish":
        ch.publish(step.exchange, step.routingKey, Buffer.from(step.body));
        try {
          await ch.waitForConfirms();
        } catch (err) {
          throw closedWith ?? err;
        }
        break;
      case "get": {
        const m = await ch.get(step.queue, { noAck: true });
        value = m === false ? null : m.content.toString();
        break;
      }
      case "consume":
        if (step.prefetch !== undefined) await ch.prefetch(step.prefetch);
        await ch.consume(step.queue, () => undefined, step.options ?? { noAck: true });
        break;
      case "purge": value = (await ch.purgeQueue(step.queue)).messageCount; break;
    }
    // A consumer lives as long as its channel: that one stays open until its connection closes.
    if (step.op !== "consume") await ch.close();
    return ok(value);
  } catch (err) {
    return amqpFailure(step, err);
  }
}

export interface ScenarioRun {
  readonly outcomes: Outcome[];
  /** Setup steps that did not succeed: the scenario's fixtures are broken, not the broker compared. */
  readonly setupFailures: string[];
}

export async function runScenario(target: Target, scenario: Scenario): Promise<ScenarioRun> {
  const vars: Vars = {};
  const conns = new Map<string, ChannelModel>();
  const run = (step: Step) => (isHttp(step) ? runHttp(target, step, vars) : runAmqp(target, step, conns, vars));
  const setupFailures: string[] = [];
  const outcomes: Outcome[] = [];
  try {
    for (const step of scenario.setup ?? []) {
      const o = await run(step);
      if ((o.kind === "http" && o.status >= 300) || (o.kind === "amqp" && !o.ok)) setupFailures.push(`${o.label}: ${JSON.stringify(o)}`);
    }
    for (const step of scenario.steps) outcomes.push(await run(step));
  } finally {
    for (const c of conns.values()) await withDeadline(c.close(), "connection.close").catch(() => undefined);
    conns.clear();
    for (const step of scenario.cleanup ?? []) await run(step).catch(() => undefined);
  }
  return { outcomes, setupFailures };
}

/** test/compat in the source tree (recordings are data, not compiled). */
export const COMPAT_SOURCE_DIR = fileURLToPath(new URL("../../../test/compat/", import.meta.url));

/** Every scenario file: name (without extension) → its scenarios, read from the compiled folder. */
export async function loadScenarioFiles(): Promise<Map<string, Scenario[]>> {
  const dir = fileURLToPath(new URL("./scenarios/", import.meta.url));
  const files = readdirSync(dir).filter((f) => f.endsWith(".js")).sort();
  const out = new Map<string, Scenario[]>();
  for (const f of files) {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { scenarios?: Scenario[] };
    if (!mod.scenarios) throw new Error(`${f} exports no scenarios`);
    const names = new Set<string>();
    for (const s of mod.scenarios) {
      if (names.has(s.name)) throw new Error(`${f}: scenario name '${s.name}' is used twice`);
      names.add(s.name);
    }
    out.set(f.replace(/\.js$/, ""), mod.scenarios);
  }
  return out;
}
