// `coney` (no --workers) started on the data dir `coney --workers 2` wrote: before the broker
// starts, the workers' data is taken back into a single node's layout
// (src/workers/workers-to-single-node.ts). Every definition, every queue's messages (in order, a
// priority queue's by priority; the ones unacked at the workers' stop redelivered), a stream's
// entries and its stored consumer offset, a held delayed message and a retained MQTT message are
// then the single node's. And back again: `--workers 2` on the same dir takes the single node over
// a second time. Real `node bin/coney.js` processes, amqplib, mqtt.js, rabbitmq-stream-js-client
// and the HTTP API.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp, { type ChannelModel } from "amqplib";
import mqtt from "mqtt";
import { connect, Offset } from "rabbitmq-stream-js-client";
import { withTimeout } from "../helpers/wait.js";
import { freePort } from "../metrics/prometheus-tools.js";
import { silentStreamLog } from "../stream/killed-stream-client.js";
import { queueGroupOf } from "../../src/broker/index.js";
import { initialTable } from "../../src/workers/group-table.js";
import { startWorkers, WorkersProcess } from "./workers-harness.js";

const VH = "tb-vh";
const USER = "tb-user";
const PER_QUEUE = 20;
const STREAM = "tb-stream";
const STREAM_ENTRIES = 30;
const STORED_OFFSET = 11n;
const PRIO = "tb-prio";
const DELAY_MS = 1500;
const DELAYED_TO = "tb-delayed-to";
const table = initialTable(16, [0, 1]);
const workerOf = (name: string): number => table.groups[queueGroupOf(VH, name, 16)]!.worker!;
/** Four queue names, two led by each worker. */
const QUEUES = [0, 1].flatMap((w) => {
  const names: string[] = [];
  for (let i = 0; names.length < 2; i++) if (workerOf(`tb-q${i}`) === w) names.push(`tb-q${i}`);
  return names;
});
/** Left for the way back to workers. */
const KEPT = QUEUES[3]!;
/** Three of its messages delivered and unacked when the workers stopped. */
const UNACKED = QUEUES[0]!;
const body = (q: string, k: number): string => `${q}:${k}:${"y".repeat(k * 5)}`;
const bin = join(import.meta.dirname, "..", "..", "..", "bin", "coney.js");

async function stopKeeping(p: WorkersProcess): Promise<void> {
  p.child.kill("SIGTERM");
  await withTimeout(p.exited, 30_000, "the stop");
}

/** The workers: definitions, messages (three unacked at stop), a priority queue, a stream with a stored offset, a held delayed message, a retained MQTT message. Returns when the delayed message is due. */
async function fillWorkers(dataDir: string): Promise<number> {
  const w = await startWorkers([], {}, dataDir);
  const started = w.lines.find((l) => l.msg === "Coney started")!;
  await w.api("PUT", `/api/vhosts/${VH}`, {});
  await w.api("PUT", `/api/users/${USER}`, { password: "tb-pass", tags: "monitoring" });
  await w.api("PUT", `/api/permissions/${VH}/${USER}`, { configure: "^tb-", write: ".*", read: ".*" });
  await w.api("PUT", `/api/permissions/${VH}/guest`, { configure: ".*", write: ".*", read: ".*" });
  await w.api("PUT", `/api/policies/${VH}/tb-policy`, { pattern: "^tb-q", definition: { "max-length": 1000 }, "apply-to": "queues", priority: 1 });
  const m = await mqtt.connectAsync(`mqtt://127.0.0.1:${started["mqtt_port"] as number}`, { clientId: "tb-mqtt", username: "guest", password: "guest", reconnectPeriod: 0 });
  await m.publishAsync("tb/retained", "kept", { retain: true, qos: 1 });
  await m.endAsync();
  const c = await amqp.connect(`${w.amqpUrl}/${VH}`);
  c.on("error", () => {});
  const ch = await c.createConfirmChannel();
  await ch.assertExchange("tb-x", "direct", { durable: true });
  await ch.assertExchange("tb-delayed", "x-delayed-message", { durable: true, arguments: { "x-delayed-type": "direct" } });
  for (const q of QUEUES) {
    await ch.assertQueue(q, { durable: true });
    await ch.bindQueue(q, "tb-x", q);
  }
  await ch.assertQueue(PRIO, { durable: true, arguments: { "x-max-priority": 5 } });
  await ch.assertQueue(DELAYED_TO, { durable: true });
  await ch.bindQueue(DELAYED_TO, "tb-delayed", "later");
  await ch.assertQueue(STREAM, { durable: true, arguments: { "x-queue-type": "stream" } });
  for (const q of QUEUES) for (let k = 0; k < PER_QUEUE; k++) ch.publish("tb-x", q, Buffer.from(body(q, k)), { persistent: true, messageId: `m-${k}` });
  for (let k = 0; k < 9; k++) ch.sendToQueue(PRIO, Buffer.from(`p:${k}`), { persistent: true, priority: k % 3 });
  for (let k = 0; k < STREAM_ENTRIES; k++) ch.sendToQueue(STREAM, Buffer.from(`s:${k}`), { persistent: true });
  await ch.waitForConfirms();
  const sc = await connect({ hostname: "127.0.0.1", port: started["stream_port"] as number, username: "guest", password: "guest", vhost: VH, heartbeat: 0 }, silentStreamLog);
  const consumer = await sc.declareConsumer({ stream: STREAM, offset: Offset.first(), consumerRef: "tb-ref" }, () => {});
  await consumer.storeOffset(STORED_OFFSET);
  for (let i = 0; i < 100 && (await sc.queryOffset({ reference: "tb-ref", stream: STREAM }).catch(() => -1n)) !== STORED_OFFSET; i++) await new Promise((r) => setTimeout(r, 50));
  await sc.close();
  const holder = await c.createChannel();
  await holder.prefetch(3);
  let held = 0;
  const allHeld = new Promise<void>((resolve) => void holder.consume(UNACKED, () => ++held === 3 && resolve()));
  await withTimeout(allHeld, 5000, "three unacked deliveries");
  const due = Date.now() + DELAY_MS;
  ch.publish("tb-delayed", "later", Buffer.from("delayed"), { persistent: true, headers: { "x-delay": DELAY_MS } });
  await ch.waitForConfirms();
  // The workers stop with the three deliveries unacked (the connection still open).
  await stopKeeping(w);
  await c.close().catch(() => {});
  return due;
}

/** `coney` without --workers, as a process, on `dataDir`. */
async function startSingle(dataDir: string, streamPort: number, mqttPort: number): Promise<WorkersProcess> {
  const args = ["--amqp-port", "0", "--http-port", "0", "--prometheus-port", "off", "--mqtt-port", String(mqttPort), "--web-mqtt-port", "off", "--stomp-port", "off", "--web-stomp-port", "off", "--stream-port", String(streamPort)];
  const child = spawn(process.execPath, [bin, ...args, "--bind", "127.0.0.1", "--data-dir", dataDir, "--log-format", "json"], { stdio: ["ignore", "ignore", "pipe"] });
  const p = new WorkersProcess(child, dataDir);
  const reap = (): void => void child.kill("SIGKILL");
  process.once("exit", reap);
  child.once("exit", () => process.off("exit", reap));
  const started = await p.logLine((l) => l.msg === "Coney started", "the single node's start line", 60_000);
  p.amqpPort = started["amqp_port"] as number;
  p.httpPort = started["http_port"] as number;
  return p;
}

describe("coney without --workers on a workers data dir takes it back, and --workers takes it over again", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-workers-to-single-"));
  let single: WorkersProcess;
  let conn: ChannelModel;
  let streamPort = 0;
  let mqttPort = 0;

  before(async () => {
    const due = await fillWorkers(dataDir);
    while (Date.now() <= due) await new Promise((r) => setTimeout(r, due + 1 - Date.now()));
    [streamPort, mqttPort] = [await freePort(), await freePort()];
    single = await startSingle(dataDir, streamPort, mqttPort);
    conn = await amqp.connect(`amqp://guest:guest@127.0.0.1:${single.amqpPort}/${VH}`);
    conn.on("error", () => {});
  });
  after(async () => {
    await withTimeout(conn.close(), 2000, "close").catch(() => {});
    await single.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("logs what moved, and leaves a single node's layout: the group stores gone, the workers' leftovers aside", async () => {
    const line = await single.logLine((l) => l.msg.startsWith("the data of coney --workers taken back"), "the take-back line");
    assert.equal(line["workers"], 2);
    assert.equal(line["queue_groups"], 16);
    assert.equal(line["messages"], QUEUES.length * PER_QUEUE + 9);
    assert.equal(line["delayed_messages"], 1);
    assert.equal(line["streams"], 1);
    assert.equal(line["definitions_added"], 0, "both workers' definitions files agree");
    assert.equal(line["audit_moved"], true);
    assert.ok(!existsSync(join(dataDir, "groups")) && !existsSync(join(dataDir, "nodes")) && !existsSync(join(dataDir, "workers.json")));
    assert.ok(existsSync(join(dataDir, "workers-migrated", "nodes", "w1")) && existsSync(join(dataDir, "workers-migrated", "workers.json")));
    assert.ok(existsSync(join(dataDir, "audit")) && existsSync(join(dataDir, "definitions.json")));
    assert.equal(JSON.parse(readFileSync(join(dataDir, "workers-to-single-node.json"), "utf8")).state, "done");
  });

  it("every definition is the single node's, and the user logs in", async () => {
    const defs = (await single.api("GET", "/api/definitions")).json as Record<string, Array<Record<string, unknown>>>;
    assert.ok(defs["vhosts"]!.some((v) => v["name"] === VH));
    assert.ok(defs["permissions"]!.some((x) => x["user"] === USER && x["vhost"] === VH && x["configure"] === "^tb-"));
    assert.ok(defs["policies"]!.some((x) => x["name"] === "tb-policy"));
    const queues = defs["queues"]!.filter((q) => q["vhost"] === VH).map((q) => q["name"]);
    for (const q of [...QUEUES, PRIO, STREAM, DELAYED_TO]) assert.ok(queues.includes(q), `queue ${q}`);
    assert.equal(defs["bindings"]!.filter((b) => b["vhost"] === VH && b["source"] === "tb-x").length, QUEUES.length);
    const u = await amqp.connect(`amqp://${USER}:tb-pass@127.0.0.1:${single.amqpPort}/${VH}`);
    u.on("error", () => {});
    await (await u.createChannel()).checkQueue(QUEUES[0]!);
    await u.close();
  });

  it("every message is there once, in order, the ones unacked at the workers' stop redelivered", async () => {
    const ch = await conn.createChannel();
    for (const q of QUEUES.filter((x) => x !== KEPT)) {
      for (let k = 0; k < PER_QUEUE; k++) {
        const m = await ch.get(q, { noAck: true });
        assert.ok(m !== false, `${q}: message ${k}`);
        assert.equal(m.content.toString(), body(q, k), `${q}: body ${k}`);
        assert.equal(m.properties.messageId, `m-${k}`);
        assert.equal(m.fields.redelivered, q === UNACKED && k < 3, `${q}:${k} redelivered`);
      }
      assert.equal(await ch.get(q, { noAck: true }), false, `${q}: nothing more`);
    }
    const prio: string[] = [];
    for (let m = await ch.get(PRIO, { noAck: true }); m !== false; m = await ch.get(PRIO, { noAck: true })) prio.push(m.content.toString());
    assert.deepEqual(prio, ["p:2", "p:5", "p:8", "p:1", "p:4", "p:7", "p:0", "p:3", "p:6"], "by priority, then in order");
    await ch.close();
  });

  it("the delayed message is released, the stream and its stored offset kept, the retained message delivered", async () => {
    const ch = await conn.createChannel();
    const got = await withTimeout(new Promise<string>((resolve) => void ch.consume(DELAYED_TO, (m) => m && resolve(m.content.toString()), { noAck: true })), 20_000, "the delayed message");
    assert.equal(got, "delayed");
    await ch.close();
    const sc = await connect({ hostname: "127.0.0.1", port: streamPort, username: "guest", password: "guest", vhost: VH, heartbeat: 0 }, silentStreamLog);
    try {
      assert.equal(await sc.queryOffset({ reference: "tb-ref", stream: STREAM }), STORED_OFFSET);
      const bodies: string[] = [];
      const all = new Promise<void>((resolve) => {
        void sc.declareConsumer({ stream: STREAM, offset: Offset.first() }, (msg) => {
          bodies.push(msg.content.toString());
          if (bodies.length === STREAM_ENTRIES) resolve();
        });
      });
      await withTimeout(all, 15_000, "the stream's entries");
      assert.deepEqual(bodies, Array.from({ length: STREAM_ENTRIES }, (_, k) => `s:${k}`));
    } finally {
      await sc.close();
    }
    const m = await mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { clientId: "tb-sub", username: "guest", password: "guest", reconnectPeriod: 0 });
    const retained = new Promise<string>((resolve) => m.on("message", (_t, payload) => resolve(payload.toString())));
    await m.subscribeAsync("tb/#", { qos: 1 });
    assert.equal(await withTimeout(retained, 10_000, "the retained message"), "kept");
    await m.endAsync();
  });

  it("--workers 2 on the same dir takes the single node over again: the queue left alone has its messages once", async () => {
    await withTimeout(conn.close(), 2000, "close").catch(() => {});
    await stopKeeping(single);
    const w = await startWorkers([], {}, dataDir);
    try {
      const line = await w.logLine((l) => l.msg.startsWith("a single node's data taken over"), "the takeover's line");
      assert.equal(line["messages"], PER_QUEUE);
      assert.ok(!existsSync(join(dataDir, "workers-to-single-node.json")), "the take-back's marker gives way to the takeover's");
      const c = await amqp.connect(`${w.amqpUrl}/${VH}`);
      c.on("error", () => {});
      const ch = await c.createChannel();
      const bodies: string[] = [];
      for (let m = await ch.get(KEPT, { noAck: true }); m !== false; m = await ch.get(KEPT, { noAck: true })) bodies.push(m.content.toString());
      assert.deepEqual(bodies, Array.from({ length: PER_QUEUE }, (_, k) => body(KEPT, k)));
      await c.close();
    } finally {
      await stopKeeping(w);
    }
    // single.close() (after) finds its process gone and removes the data dir.
  });
});
