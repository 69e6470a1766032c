// `coney --workers 2` started on the data dir a single node wrote (the README's `npm start`, then the
// same --data-dir with --workers): the primary takes the single node's data over before it forks
// a worker (src/workers/single-node-takeover.ts). Every definition is then known by both workers,
// every durable queue's messages are in its group's store (in order, bodies and properties as
// published, unacked ones among them), the stream's entries and a stored consumer offset are
// there, a delayed message is still released, and the queues lead on both workers. A restart
// takes nothing over again. Real single-node broker, real `node bin/coney.js --workers 2`, amqplib,
// rabbitmq-stream-js-client and the HTTP API.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp, { type ChannelModel, type Options } from "amqplib";
import mqtt from "mqtt";
import { connect, Offset } from "rabbitmq-stream-js-client";
import { startTestBroker } from "../helpers/broker.js";
import { withTimeout } from "../helpers/wait.js";
import { silentStreamLog } from "../stream/killed-stream-client.js";
import { queueGroupOf } from "../../src/broker/index.js";
import { initialTable } from "../../src/workers/group-table.js";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";
import { request } from "./worker-landing.js";

const VH = "tk-vh";
const USER = "tk-user";
const PER_QUEUE = 20;
const STREAM = "tk-stream";
const STREAM_ENTRIES = 30;
const STORED_OFFSET = 17n;
/** The delayed message's x-delay: it falls due while no broker runs. */
const DELAY_MS = 2000;
/** Where the delayed exchange routes its message when due. */
const DELAYED_TO = "tk-delayed-to";
/** Queue name → the worker its group (of the default 16) is given to at the first start. */
const table = initialTable(16, [0, 1]);
const workerOf = (name: string): number => table.groups[queueGroupOf(VH, name, 16)]!.worker!;
/** Six queue names, three led by each worker. */
const QUEUES = [0, 1].flatMap((w) => {
  const names: string[] = [];
  for (let i = 0; names.length < 3; i++) if (workerOf(`tk-q${i}`) === w) names.push(`tk-q${i}`);
  return names;
});
/** The queue whose messages are left for the restart (the "nothing taken over twice" check). */
const KEPT = QUEUES[5]!;
/** The queue some of whose messages were delivered and unacked when the single node stopped. */
const UNACKED = QUEUES[0]!;

function props(q: string, k: number): Options.Publish {
  // Every other message carries every property, with headers of several field types.
  if (k % 2 === 1) return { persistent: true };
  return {
    persistent: true, contentType: "application/json", contentEncoding: "identity", priority: 3, correlationId: `c-${q}-${k}`, replyTo: "tk-replies",
    messageId: `m-${k}`, timestamp: 1_700_000_000 + k, type: "kind", appId: "tk-app", userId: "guest",
    headers: { s: `h-${k}`, n: k, neg: -5, b: true, f: 1.5, nested: { a: 1, t: "x" }, arr: [1, "two"] },
  };
}
const body = (q: string, k: number): Buffer => Buffer.from(`${q}:${k}:${"x".repeat(k * 7)}`);

/** The single node: definitions of every kind, messages in six queues (some unacked at stop), a stream with a stored offset, a held delayed message. */
async function fillSingleNode(dataDir: string): Promise<number> {
  const single = await startTestBroker({ dataDir, streamPort: 0, mqttPort: 0 });
  const api = async (method: string, path: string, b?: unknown): Promise<void> => {
    const r = await fetch(`${single.httpUrl}${path}`, { method, headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}`, "content-type": "application/json" }, ...(b === undefined ? {} : { body: JSON.stringify(b) }) });
    assert.ok(r.ok, `${method} ${path}: ${r.status} ${await r.text()}`);
  };
  await api("PUT", `/api/vhosts/${VH}`, {});
  await api("PUT", `/api/users/${USER}`, { password: "tk-pass", tags: "monitoring" });
  await api("PUT", `/api/permissions/${VH}/${USER}`, { configure: "^tk-", write: ".*", read: ".*" });
  await api("PUT", `/api/permissions/${VH}/guest`, { configure: ".*", write: ".*", read: ".*" });
  await api("PUT", `/api/topic-permissions/${VH}/${USER}`, { exchange: "tk-x", write: "^tk\\.", read: ".*" });
  await api("PUT", `/api/policies/${VH}/tk-policy`, { pattern: "^tk-q", definition: { "max-length": 1000 }, "apply-to": "queues", priority: 1 });
  await api("PUT", `/api/vhost-limits/${VH}/max-connections`, { value: 50 });
  await api("PUT", `/api/operator-policies/${VH}/tk-op`, { pattern: "^tk-q", definition: { "max-length": 5000 }, "apply-to": "queues", priority: 1 });
  await api("PUT", `/api/parameters/federation-upstream/${VH}/tk-upstream`, { value: { uri: "amqp://127.0.0.1:1" } });
  await api("PUT", "/api/global-parameters/tk-global", { value: { owner: "tk" } });
  // A retained MQTT message: the workers keep the retained set per worker, so each gets the single node's.
  const m = await mqtt.connectAsync(`mqtt://127.0.0.1:${single.mqttPort}`, { clientId: "tk-mqtt", username: "guest", password: "guest", reconnectPeriod: 0 });
  await m.publishAsync("tk/retained", "kept", { retain: true, qos: 1 });
  await m.endAsync();
  const c = await amqp.connect(single.urlFor("guest", "guest", VH));
  c.on("error", () => {});
  const ch = await c.createConfirmChannel();
  await ch.assertExchange("tk-x", "topic", { durable: true });
  await ch.assertExchange("tk-delayed", "x-delayed-message", { durable: true, arguments: { "x-delayed-type": "direct" } });
  for (const q of QUEUES) {
    await ch.assertQueue(q, { durable: true });
    await ch.bindQueue(q, "tk-x", `tk.${q}.#`);
  }
  await ch.assertQueue(DELAYED_TO, { durable: true });
  await ch.bindQueue(DELAYED_TO, "tk-delayed", "later");
  await ch.assertQueue(STREAM, { durable: true, arguments: { "x-queue-type": "stream" } });
  for (const q of QUEUES) for (let k = 0; k < PER_QUEUE; k++) ch.publish("tk-x", `tk.${q}.m`, body(q, k), props(q, k));
  for (let k = 0; k < STREAM_ENTRIES; k++) ch.sendToQueue(STREAM, Buffer.from(`s:${k}`), { persistent: true });
  await ch.waitForConfirms();
  // Three messages delivered and never acknowledged: the broker stops with them unacked.
  const holder = await c.createChannel();
  await holder.prefetch(3);
  let held = 0;
  const allHeld = new Promise<void>((resolve) => void holder.consume(UNACKED, () => ++held === 3 && resolve()));
  await withTimeout(allHeld, 5000, "three unacked deliveries");
  const sc = await connect({ hostname: "127.0.0.1", port: single.streamPort!, username: "guest", password: "guest", vhost: VH, heartbeat: 0 }, silentStreamLog);
  const consumer = await sc.declareConsumer({ stream: STREAM, offset: Offset.first(), consumerRef: "tk-ref" }, () => {});
  await consumer.storeOffset(STORED_OFFSET);
  for (let i = 0; i < 100 && (await sc.queryOffset({ reference: "tk-ref", stream: STREAM }).catch(() => -1n)) !== STORED_OFFSET; i++) await new Promise((r) => setTimeout(r, 50));
  await sc.close();
  // Last, so the single node stops before it is due: held, then taken over by worker w0, which finds it already due.
  const due = Date.now() + DELAY_MS;
  ch.publish("tk-delayed", "later", Buffer.from("delayed"), { persistent: true, headers: { "x-delay": DELAY_MS } });
  await ch.waitForConfirms();
  await single.close();
  await c.close().catch(() => {});
  return due;
}

/** Stops the primary (SIGTERM: it stops its workers and exits), keeping the data dir. */
async function stopKeeping(p: WorkersProcess): Promise<void> {
  p.child.kill("SIGTERM");
  await withTimeout(p.exited, 30_000, "the primary's stop");
}

/** One kept-alive HTTP connection per worker (each request on it reaches the worker that accepted it). */
async function agentsPerWorker(port: number): Promise<Map<string, http.Agent>> {
  const found = new Map<string, http.Agent>();
  for (let i = 0; i < 40 && found.size < 2; i++) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const node = ((await request(port, "GET", "/api/overview", undefined, agent)).json as { node: string }).node;
    if (found.has(node)) agent.destroy();
    else found.set(node, agent);
  }
  assert.equal(found.size, 2, "HTTP connections landed on both workers");
  return found;
}

describe("coney --workers 2 on a single node's data dir takes it over", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-single-takeover-"));
  let p: WorkersProcess;
  let conn: ChannelModel;

  before(async () => {
    const due = await fillSingleNode(dataDir);
    // The workers start once the delayed message is due: recovered already due, it must still be
    // released (a worker released it before its queues were in place, and lost it).
    while (Date.now() <= due) await new Promise((r) => setTimeout(r, due + 1 - Date.now()));
    p = await startWorkers([], {}, dataDir);
    conn = await amqp.connect(`${p.amqpUrl}/${VH}`);
    conn.on("error", () => {});
  });
  after(async () => {
    await withTimeout(conn.close(), 2000, "close").catch(() => {});
    if (p.child.exitCode === null && p.child.signalCode === null) await p.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("logs what moved, and leaves one copy: the old store and streams gone, the small files aside", async () => {
    const line = await p.logLine((l) => l.msg.startsWith("a single node's data taken over"), "the takeover's line");
    assert.equal(line["messages"], QUEUES.length * PER_QUEUE);
    assert.equal(line["delayed_messages"], 1);
    assert.equal(line["streams"], 1);
    assert.equal(line["queues"], QUEUES.length + 2);
    assert.equal(line["workers"], 2);
    assert.equal(line["audit_moved"], true);
    assert.ok(!existsSync(join(dataDir, "messages")) && !existsSync(join(dataDir, "streams")) && !existsSync(join(dataDir, "definitions.json")));
    assert.ok(existsSync(join(dataDir, "single-node-migrated", "definitions.json")));
    assert.equal(JSON.parse(readFileSync(join(dataDir, "single-node-takeover.json"), "utf8")).state, "done");
    assert.ok(existsSync(join(dataDir, "nodes", "w0", "audit")), "the audit trail is worker w0's");
  });

  it("every definition is known by both workers", async () => {
    for (const [node, agent] of await agentsPerWorker(p.httpPort)) {
      const defs = (await request(p.httpPort, "GET", "/api/definitions", undefined, agent)).json as Record<string, Array<Record<string, unknown>>>;
      const names = (k: string): unknown[] => defs[k]!.filter((x) => x["vhost"] === undefined || x["vhost"] === VH).map((x) => x["name"] ?? x["user"]);
      assert.ok(defs["vhosts"]!.some((v) => v["name"] === VH), `${node}: the vhost`);
      assert.ok(defs["users"]!.some((u) => u["name"] === USER && u["tags"] !== undefined), `${node}: the user`);
      assert.ok(defs["permissions"]!.some((x) => x["user"] === USER && x["vhost"] === VH && x["configure"] === "^tk-"), `${node}: the permissions`);
      assert.ok(defs["topic_permissions"]!.some((x) => x["user"] === USER && x["exchange"] === "tk-x" && x["write"] === "^tk\\."), `${node}: the topic permissions`);
      assert.ok(defs["policies"]!.some((x) => x["name"] === "tk-policy" && x["vhost"] === VH), `${node}: the policy`);
      const opPolicies = (await request(p.httpPort, "GET", `/api/operator-policies/${VH}`, undefined, agent)).json as Array<{ name: string }>;
      assert.ok(opPolicies.some((x) => x.name === "tk-op"), `${node}: the operator policy`);
      assert.ok(defs["parameters"]!.some((x) => x["component"] === "federation-upstream" && x["name"] === "tk-upstream"), `${node}: the federation upstream`);
      assert.ok(defs["global_parameters"]!.some((x) => x["name"] === "tk-global"), `${node}: the global parameter`);
      assert.ok(names("exchanges").includes("tk-x") && names("exchanges").includes("tk-delayed"), `${node}: the exchanges`);
      for (const q of [...QUEUES, STREAM]) assert.ok(names("queues").includes(q), `${node}: queue ${q}`);
      const bindings = defs["bindings"]!.filter((b) => b["vhost"] === VH && b["source"] === "tk-x");
      assert.equal(bindings.length, QUEUES.length, `${node}: the bindings`);
      const limits = (await request(p.httpPort, "GET", `/api/vhost-limits/${VH}`, undefined, agent)).json as Array<{ value: Record<string, number> }>;
      assert.equal(limits[0]?.value["max-connections"], 50, `${node}: the vhost limit`);
      agent.destroy();
    }
    for (const w of ["w0", "w1"]) {
      const saved = JSON.parse(readFileSync(join(dataDir, "nodes", w, "definitions.json"), "utf8")) as { vhosts: Array<{ name: string }>; queues: Array<{ name: string }> };
      assert.ok(saved.vhosts.some((v) => v.name === VH) && saved.queues.some((q) => q.name === STREAM), `${w}'s own definitions file`);
    }
    // The user logs in with its password and works within its permissions.
    const u = await amqp.connect(`amqp://${USER}:tk-pass@127.0.0.1:${p.amqpPort}/${VH}`);
    u.on("error", () => {});
    const ch = await u.createChannel();
    await ch.checkQueue(QUEUES[0]!);
    await u.close();
  });

  it("the retained MQTT message is there, whichever worker the subscriber lands on", async () => {
    const started = p.lines.find((l) => l.msg === "Coney started")!;
    for (const w of ["w0", "w1"]) assert.match(readFileSync(join(dataDir, "nodes", w, "mqtt-retained.json"), "utf8"), /tk\/retained/, `${w}'s retained file`);
    const m = await mqtt.connectAsync(`mqtt://127.0.0.1:${started["mqtt_port"] as number}`, { clientId: "tk-sub", username: "guest", password: "guest", reconnectPeriod: 0 });
    const got = new Promise<string>((resolve) => m.on("message", (_t, payload) => resolve(payload.toString())));
    await m.subscribeAsync("tk/#", { qos: 1 });
    assert.equal(await withTimeout(got, 10_000, "the retained message"), "kept");
    await m.endAsync();
  });

  it("the queues lead on both workers, placed by the name hash", async () => {
    const list = (await p.api("GET", `/api/queues/${VH}?columns=name,node`)).json as Array<{ name: string; node: string }>;
    for (const q of QUEUES) assert.match(list.find((x) => x.name === q)!.node, new RegExp(`-w${workerOf(q)}@`), `${q} on w${workerOf(q)}`);
  });

  it("every message is there once, in order, body and properties as published, the unacked ones redelivered", async () => {
    const ch = await conn.createChannel();
    for (const q of QUEUES.filter((x) => x !== KEPT)) {
      for (let k = 0; k < PER_QUEUE; k++) {
        const m = await ch.get(q, { noAck: true });
        assert.ok(m !== false, `${q}: message ${k}`);
        assert.ok(m.content.equals(body(q, k)), `${q}: body ${k}`);
        // Delivered (unacked) at the single node's stop: redelivered, as after the single node's own restart.
        assert.equal(m.fields.redelivered, q === UNACKED && k < 3, `${q}:${k} redelivered`);
        const want = props(q, k);
        const got = m.properties;
        assert.equal(got.deliveryMode, 2);
        for (const f of ["contentType", "contentEncoding", "priority", "correlationId", "replyTo", "messageId", "timestamp", "type", "appId", "userId"] as const) assert.equal(got[f], want[f], `${q}:${k} ${f}`);
        if (want.headers) assert.deepEqual(got.headers, want.headers, `${q}:${k} headers`);
      }
      assert.equal(await ch.get(q, { noAck: true }), false, `${q}: nothing more`);
    }
    await ch.close();
  });

  it("the delayed message is still released, by the worker that took it", async () => {
    const ch = await conn.createChannel();
    // Due before the workers started: released once worker w0 serves (before or after this consume starts).
    const got = await withTimeout(new Promise<string>((resolve) => void ch.consume(DELAYED_TO, (m) => m && resolve(m.content.toString()), { noAck: true })), 20_000, "the delayed message").catch(async (err: Error) => {
      const q = (await p.api("GET", `/api/queues/${VH}/${DELAYED_TO}`)).json as Record<string, unknown>;
      throw new Error(`${err.message}; the queue: ${JSON.stringify({ messages: q["messages"], node: q["node"], consumers: q["consumers"] })}`);
    });
    assert.equal(got, "delayed");
    await ch.close();
  });

  it("the stream keeps its entries from offset 0 and the stored consumer offset", async () => {
    const ch = await conn.createChannel();
    await ch.prefetch(100);
    const got: Array<{ body: string; offset: number }> = [];
    await withTimeout(new Promise<void>((resolve) => {
      void ch.consume(STREAM, (m) => {
        if (m === null) return;
        got.push({ body: m.content.toString(), offset: Number(m.properties.headers?.["x-stream-offset"]) });
        ch.ack(m);
        if (got.length === STREAM_ENTRIES) resolve();
      }, { arguments: { "x-stream-offset": 0 } });
    }), 15_000, "the stream's entries");
    assert.deepEqual(got, Array.from({ length: STREAM_ENTRIES }, (_, k) => ({ body: `s:${k}`, offset: k })));
    await ch.close();
    const started = p.lines.find((l) => l.msg === "Coney started")!;
    const sc = await connect({ hostname: "127.0.0.1", port: started["stream_port"] as number, username: "guest", password: "guest", vhost: VH, heartbeat: 0 }, silentStreamLog);
    try {
      assert.equal(await sc.queryOffset({ reference: "tk-ref", stream: STREAM }), STORED_OFFSET);
    } finally {
      await sc.close();
    }
  });

  it("a restart takes nothing over again: the queue left alone has its messages once", async () => {
    await withTimeout(conn.close(), 2000, "close").catch(() => {});
    await stopKeeping(p);
    p = await startWorkers([], {}, dataDir);
    conn = await amqp.connect(`${p.amqpUrl}/${VH}`);
    conn.on("error", () => {});
    assert.equal(p.lines.find((l) => l.msg.startsWith("a single node's data taken over")), undefined);
    const ch = await conn.createChannel();
    const bodies: string[] = [];
    for (let m = await ch.get(KEPT, { noAck: true }); m !== false; m = await ch.get(KEPT, { noAck: true })) bodies.push(m.content.toString());
    assert.deepEqual(bodies, Array.from({ length: PER_QUEUE }, (_, k) => body(KEPT, k).toString()));
    for (const q of QUEUES.filter((x) => x !== KEPT)) assert.equal((await ch.checkQueue(q)).messageCount, 0, `${q} stays empty`);
    await ch.close();
  });

  it("a single node asked for other queue groups on the workers' data dir is refused with what to do", async () => {
    const { spawnSync } = await import("node:child_process");
    await withTimeout(conn.close(), 2000, "close").catch(() => {});
    await stopKeeping(p);
    const bin = join(import.meta.dirname, "..", "..", "..", "bin", "coney.js");
    const args = ["--amqp-port", "0", "--http-port", "0", "--prometheus-port", "off", "--mqtt-port", "off", "--web-mqtt-port", "off", "--stomp-port", "off", "--web-stomp-port", "off", "--stream-port", "off", "--data-dir", dataDir];
    // Without the setting it would take the data back (workers-to-single-node.test.ts); with another G it cannot.
    const r = spawnSync(process.execPath, [bin, ...args, "--queue-groups", "4"], { encoding: "utf8", timeout: 30_000 });
    assert.equal(r.status, 78, r.stderr);
    assert.match(r.stderr + r.stdout, /queue_groups = 4 was asked: a single node takes the workers' data back into its default layout/);
    assert.ok(!existsSync(join(dataDir, "definitions.json")) && !existsSync(join(dataDir, "workers-to-single-node.json")), "nothing written");
    // Workers as spread-cluster nodes keep their data elsewhere (spread/): refused, before any worker or etcd is reached.
    const spread = spawnSync(process.execPath, [bin, "--workers", "2", "--cluster-mode", "spread", "--etcd-endpoints", "http://127.0.0.1:9", ...args], { encoding: "utf8", timeout: 30_000 });
    assert.notEqual(spread.status, 0);
    assert.match(spread.stderr, /holds the data of coney --workers N \(not as spread-cluster nodes\)/);
    assert.ok(!existsSync(join(dataDir, "spread")), "nothing written");
  });
});
