// Every field RabbitMQ 3.10's management UI reads, present with the right type in Coney's
// records, fetched as the UI fetches them (same paths and chart parameters) from a broker with
// something on every page: a named connection with a consumer, queues with messages, a topic
// exchange with bindings, a policy, a second user and vhost, vhost limits. The field lists and
// where they come from: rabbitmq-ui-fields.ts. `npm run compat:ui` checks the UI itself.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import * as UI from "./rabbitmq-ui-fields.js";

function typeProblem(value: unknown, type: UI.FieldType): string | null {
  const ok = (v: unknown, t: string): boolean => {
    if (t === "null") return v === null;
    if (t === "array") return Array.isArray(v);
    if (t === "object") return typeof v === "object" && v !== null && !Array.isArray(v);
    if (t === "number") return typeof v === "number" && Number.isFinite(v);
    return typeof v === t;
  };
  if (type === "rate" || type === "chart") {
    if (!ok(value, "object")) return `expected a ${type} object, got ${JSON.stringify(value)}`;
    const d = value as Record<string, unknown>;
    if (!ok(d["rate"], "number")) return `rate is ${JSON.stringify(d["rate"])}`;
    if (type === "rate") return null;
    const samples = d["samples"];
    if (!Array.isArray(samples) || samples.length === 0) return `samples is ${JSON.stringify(samples)}`;
    for (const s of samples as Array<Record<string, unknown>>) if (!ok(s["sample"], "number") || !ok(s["timestamp"], "number")) return `bad sample ${JSON.stringify(s)}`;
    if (!ok(d["avg"], "number") || !ok(d["avg_rate"], "number")) return `avg/avg_rate are ${JSON.stringify([d["avg"], d["avg_rate"]])}`;
    return null;
  }
  return type.split("|").some((t) => ok(value, t)) ? null : `expected ${type}, got ${JSON.stringify(value)}`;
}

/** Asserts every listed field at once, so a failure names all that are wrong. */
function expectFields(record: unknown, fields: UI.Fields, where: string): void {
  assert.ok(typeof record === "object" && record !== null, `${where}: not a record: ${JSON.stringify(record)}`);
  const r = record as Record<string, unknown>;
  const problems = Object.entries(fields)
    .map(([k, t]) => (k in r ? typeProblem(r[k], t) : "missing") && `${k}: ${k in r ? typeProblem(r[k], t) : "missing"}`)
    .filter((p): p is string => typeof p === "string");
  assert.deepEqual(problems, [], `${where}: fields RabbitMQ's UI reads`);
}

const CHARTS = "lengths_age=60&lengths_incr=5&msg_rates_age=60&msg_rates_incr=5&data_rates_age=60&data_rates_incr=5";

describe("the fields RabbitMQ's management UI reads", () => {
  let broker: TestBroker;
  let conn: ChannelModel;
  let connName: string;
  const api = apiClient(() => broker.httpUrl);
  const get = async (path: string): Promise<unknown> => {
    const r = await api("GET", path);
    assert.equal(r.status, 200, `GET ${path}: ${JSON.stringify(r.json)}`);
    return r.json;
  };

  before(async () => {
    broker = await startTestBroker();
    for (const [path, body] of [
      ["/api/vhosts/ui-vhost", { description: "second", tags: "a,b" }],
      ["/api/users/ui-user", { password: "p", tags: "management" }],
      ["/api/permissions/ui-vhost/ui-user", { configure: ".*", write: ".*", read: ".*" }],
      ["/api/policies/%2F/ui-policy", { pattern: "^ui\\.", definition: { "max-length": 1000 }, "apply-to": "queues", priority: 1 }],
      ["/api/vhost-limits/ui-vhost/max-connections", { value: 100 }],
    ] as const) {
      const r = await api("PUT", path, body);
      assert.ok(r.status < 300, `PUT ${path}: ${r.status}`);
    }
    conn = await amqp.connect(broker.amqpUrl, { clientProperties: { connection_name: "ui-named-connection" } });
    const ch = await conn.createChannel();
    await ch.assertExchange("ui.topic", "topic");
    await ch.assertQueue("ui.orders");
    await ch.assertQueue("ui.consumed");
    await ch.bindQueue("ui.orders", "ui.topic", "orders.#");
    await ch.bindQueue("ui.consumed", "ui.topic", "#");
    for (let i = 0; i < 10; i++) ch.publish("ui.topic", `orders.${i}`, Buffer.from(`order ${i}`));
    await ch.prefetch(2);
    await ch.consume("ui.consumed", () => {});
    await eventually(async () => ((await api("GET", "/api/queues/%2F/ui.consumed")).json as { messages_unacknowledged: number }).messages_unacknowledged === 2, 5000, "deliveries to the consumer");
    const conns = (await get("/api/connections")) as Array<{ name: string }>;
    connName = conns[0]!.name;
  });
  after(async () => {
    await conn.close();
    await broker.close();
  });

  it("before the login form and at start: /api/auth, /api/extensions, /api/overview", async () => {
    const auth = await fetch(`${broker.httpUrl}/api/auth`);
    assert.equal(auth.status, 200, "/api/auth needs no login");
    expectFields(await auth.json(), UI.AUTH, "/api/auth");
    const ext = (await get("/api/extensions")) as unknown[];
    assert.ok(ext.some((e) => (e as { javascript?: string }).javascript === "dispatcher.js"), "the UI's own dispatcher.js is listed");
    for (const e of ext) expectFields(e, UI.EXTENSION, "extension");
    const o = (await get("/api/overview?lengths_age=60&lengths_incr=5&msg_rates_age=60&msg_rates_incr=5")) as Record<string, Record<string, unknown>>;
    expectFields(o, UI.OVERVIEW, "/api/overview");
    expectFields(o["sample_retention_policies"], UI.SAMPLE_RETENTION, "sample_retention_policies");
    expectFields(o["object_totals"], UI.OBJECT_TOTALS, "object_totals");
    expectFields(o["queue_totals"], UI.QUEUE_LENGTHS_CHART, "queue_totals");
    expectFields(o["churn_rates"], UI.CHURN_RATES, "churn_rates");
    for (const l of o["listeners"] as unknown as unknown[]) expectFields(l, UI.LISTENER, "listener");
    const contexts = o["contexts"] as unknown as unknown[];
    assert.ok(contexts.length > 0, "the management listener is a web context");
    for (const c of contexts) expectFields(c, UI.OVERVIEW_CONTEXT, "context");
  });

  it("the node: /api/nodes, /api/nodes/{name} with charts, and its memory breakdown", async () => {
    const [listed] = (await get("/api/nodes")) as Array<Record<string, unknown>>;
    expectFields(listed, UI.NODE, "/api/nodes[0]");
    const name = encodeURIComponent(listed!["name"] as string);
    const node = (await get(`/api/nodes/${name}?node_stats_age=60&node_stats_incr=5`)) as Record<string, unknown>;
    expectFields(node, { ...UI.NODE, ...UI.NODE_GAUGES_CHART }, "/api/nodes/{name}");
    for (const a of node["applications"] as unknown[]) expectFields(a, UI.APPLICATION, "application");
    for (const m of node["auth_mechanisms"] as unknown[]) expectFields(m, UI.REGISTRY_ENTRY, "auth mechanism");
    const withMemory = (await get(`/api/nodes/${name}?memory=true`)) as Record<string, Record<string, unknown>>;
    expectFields(withMemory["memory"], UI.MEMORY, "memory");
    expectFields(withMemory["memory"]!["total"], UI.MEMORY_TOTAL, "memory.total");
  });

  it("connections and one connection", async () => {
    const list = (await get("/api/connections")) as unknown[];
    for (const c of list) expectFields(c, UI.CONNECTION, "/api/connections[]");
    const one = await get(`/api/connections/${encodeURIComponent(connName)}?${CHARTS}`);
    expectFields(one, { ...UI.CONNECTION, ...UI.CONNECTION_DETAIL_CHART }, "/api/connections/{name}");
    assert.equal((one as { user_provided_name: string }).user_provided_name, "ui-named-connection");
    for (const ch of (await get(`/api/connections/${encodeURIComponent(connName)}/channels`)) as unknown[]) expectFields(ch, UI.CHANNEL, "connection's channel");
  });

  it("channels and one channel", async () => {
    const list = (await get("/api/channels")) as Array<{ name: string; message_stats: unknown }>;
    assert.ok(list.length > 0);
    for (const ch of list) {
      expectFields(ch, UI.CHANNEL, "/api/channels[]");
      expectFields(ch.message_stats, UI.CHANNEL_MESSAGE_STATS, "channel message_stats");
    }
    const one = (await get(`/api/channels/${encodeURIComponent(list[0]!.name)}?${CHARTS}`)) as { consumer_details: unknown[] };
    expectFields(one, UI.CHANNEL_DETAIL, "/api/channels/{name}");
    assert.equal(one.consumer_details.length, 1);
    expectFields(one.consumer_details[0], UI.CONSUMER, "channel consumer");
  });

  it("exchanges and one exchange", async () => {
    for (const x of (await get("/api/exchanges")) as unknown[]) expectFields(x, UI.EXCHANGE, "/api/exchanges[]");
    const one = (await get(`/api/exchanges/%2F/ui.topic?${CHARTS}`)) as { message_stats: unknown };
    expectFields(one, UI.EXCHANGE_DETAIL, "/api/exchanges/{vhost}/{name}");
    expectFields(one.message_stats, UI.EXCHANGE_MESSAGE_STATS_CHART, "exchange message_stats");
    assert.ok(Array.isArray(await get("/api/exchanges/%2F/ui.topic/bindings/source")));
  });

  it("queues and one queue", async () => {
    for (const q of (await get("/api/queues")) as unknown[]) expectFields(q, UI.QUEUE, "/api/queues[]");
    const one = (await get(`/api/queues/%2F/ui.consumed?${CHARTS}`)) as { consumer_details: unknown[]; message_stats: unknown };
    expectFields(one, UI.QUEUE_DETAIL, "/api/queues/{vhost}/{name}");
    expectFields(one.message_stats, UI.QUEUE_MESSAGE_STATS_CHART, "queue message_stats");
    assert.equal(one.consumer_details.length, 1);
    expectFields(one.consumer_details[0], UI.CONSUMER, "queue consumer");
    const ch = await conn.createChannel();
    const { queue } = await ch.assertQueue("", { exclusive: true });
    const exclusive = (await get(`/api/queues/%2F/${encodeURIComponent(queue)}?${CHARTS}`)) as Record<string, unknown>;
    // An idle queue has no message_stats, as in RabbitMQ (its UI shows "Currently idle").
    const { message_stats: _idle, ...idleQueue } = UI.QUEUE_DETAIL;
    expectFields(exclusive, idleQueue, "exclusive queue");
    assert.equal("message_stats" in exclusive, false);
    expectFields(exclusive["owner_pid_details"], UI.OWNER, "owner_pid_details");
    assert.equal((exclusive["owner_pid_details"] as { name: string }).name, connName);
    await ch.close();
  });

  it("users, vhosts, policies and limits", async () => {
    for (const u of (await get("/api/users")) as unknown[]) expectFields(u, UI.USER, "/api/users[]");
    expectFields(await get("/api/users/ui-user"), UI.USER, "/api/users/{name}");
    for (const v of (await get("/api/vhosts")) as unknown[]) expectFields(v, UI.VHOST, "/api/vhosts[]");
    expectFields(await get(`/api/vhosts/ui-vhost?${CHARTS}`), { ...UI.VHOST, ...UI.VHOST_DETAIL_CHART }, "/api/vhosts/{name}");
    for (const p of (await get("/api/policies")) as unknown[]) expectFields(p, UI.POLICY, "/api/policies[]");
    expectFields(await get("/api/policies/%2F/ui-policy"), UI.POLICY, "/api/policies/{vhost}/{name}");
    // RabbitMQ's Admin → Feature Flags page reads these fields of each flag.
    const flags = (await get("/api/feature-flags")) as Array<Record<string, unknown>>;
    assert.ok(flags.length > 0);
    for (const f of flags) assert.deepEqual(Object.keys(f).sort(), ["desc", "doc_url", "name", "provided_by", "stability", "state"]);
    const limits = (await get("/api/vhost-limits")) as unknown[];
    assert.equal(limits.length, 1);
    expectFields(limits[0], UI.VHOST_LIMIT, "/api/vhost-limits[]");
  });
});
