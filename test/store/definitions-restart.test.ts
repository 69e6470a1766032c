// Durable definitions survive a clean restart and a kill -9; transient ones do not.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { startTestBroker } from "../helpers/broker.js";
import { eventually, withTimeout } from "../helpers/wait.js";

const bin = new URL("../../../bin/coney.js", import.meta.url).pathname;

describe("definitions persistence", () => {
  it("keeps durable exchanges, queues, bindings, users, vhosts and permissions across a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-restart-"));
    const first = await startTestBroker({ dataDir });
    const b = first.broker;
    b.putVhost("shop", { description: "the shop" });
    b.putUser("alice", { password: "secret", tags: ["management"] });
    b.setPermission("alice", "shop", { configure: "^a_.*", write: ".*", read: ".*" });
    const conn = await amqp.connect(first.urlFor("guest", "guest"));
    const ch = await conn.createChannel();
    await ch.assertExchange("orders", "topic", { durable: true });
    await ch.assertQueue("orders-eu", { durable: true, arguments: { "x-max-length": 10 } });
    await ch.bindQueue("orders-eu", "orders", "eu.#");
    await ch.assertQueue("scratch", { durable: false });
    await ch.assertExchange("temp-x", "fanout", { durable: false });
    await conn.close();
    await first.close();

    const second = await startTestBroker({ dataDir });
    const v = second.broker.vhost("/");
    assert.ok(v.exchanges.has("orders"));
    const q = v.queues.get("orders-eu");
    assert.ok(q && q.durable);
    assert.deepEqual(q.arguments, { "x-max-length": 10 });
    assert.equal([...q.boundFrom][0]?.routingKey, "eu.#");
    assert.ok(!v.queues.has("scratch"), "non-durable queues are gone, as in RabbitMQ");
    assert.ok(!v.exchanges.has("temp-x"));
    assert.equal(second.broker.vhost("shop").metadata.description, "the shop");
    assert.ok(second.broker.authenticate("alice", "secret"));
    assert.equal(second.broker.users.permission("alice", "shop")?.configure, "^a_.*");
    const c2 = await amqp.connect(second.urlFor("alice", "secret", "shop"));
    await c2.close();
    await second.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("survives kill -9: the definitions file is whole and holds what was declared", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-kill-"));
    const child = spawn(process.execPath, [bin, "--amqp-port", "0", "--http-port", "off", "--prometheus-port", "off", "--mqtt-port", "off", "--web-mqtt-port", "off", "--stomp-port", "off", "--web-stomp-port", "off", "--stream-port", "off", "--bind", "127.0.0.1", "--data-dir", dataDir], { stdio: ["ignore", "ignore", "pipe"] });
    let log = "";
    const port = await withTimeout(
      new Promise<number>((resolve) => child.stderr.on("data", (d: Buffer) => {
        log += d.toString();
        const m = /"amqp_port":(\d+)/.exec(log);
        if (m) resolve(Number(m[1]));
      })),
      10_000,
      "startup",
    );
    const conn = await amqp.connect(`amqp://guest:guest@127.0.0.1:${port}`);
    conn.on("error", () => {});
    const ch = await conn.createChannel();
    for (let i = 0; i < 50; i++) await ch.assertQueue(`durable-${i}`, { durable: true });
    // The snapshot follows the last change within 50 ms; wait until it holds it, then crash hard.
    const file = join(dataDir, "definitions.json");
    await eventually(() => existsSync(file) && readFileSync(file, "utf8").includes('"durable-49"'), 5000, "the snapshot with all 50 queues");
    const exited = new Promise((resolve) => child.on("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    assert.deepEqual(readdirSync(dataDir).filter((f) => f.includes(".tmp-")), [], "no temp file left behind");
    assert.ok(existsSync(join(dataDir, "definitions.json")));
    const after = await startTestBroker({ dataDir });
    await eventually(() => after.broker.vhost("/").queues.size >= 50, 2000, "50 queues restored");
    for (let i = 0; i < 50; i++) assert.ok(after.broker.vhost("/").queues.has(`durable-${i}`));
    await after.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
});

describe("--load-definitions", () => {
  it("imports a definitions file at boot", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-load-"));
    const file = join(dir, "defs.json");
    writeFileSync(file, JSON.stringify({ vhosts: [{ name: "loaded" }], queues: [{ name: "boot-q", vhost: "loaded", durable: true, auto_delete: false, arguments: {} }] }));
    const b = await startTestBroker({ loadDefinitions: file });
    assert.ok(b.broker.vhost("loaded").queues.has("boot-q"));
    assert.ok(b.broker.authenticate("guest", "guest"), "first boot still creates the default user");
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
