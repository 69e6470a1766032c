// A single node's data taken over by `coney --workers 2`, with the primary killed -9 while it moves
// the data (src/workers/single-node-takeover.ts): the next start finishes the takeover and no
// message is lost; a message can come twice only if the kill fell between the groups' fsync and
// the old store's acknowledgements (documented), never three times, and every queue keeps its
// order. Where the kill lands varies from run to run; what is checked holds wherever it lands.
// Real single-node broker, real `node bin/coney.js --workers 2` process trees, amqplib.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { startTestBroker } from "../helpers/broker.js";
import { withTimeout } from "../helpers/wait.js";
import { spawn } from "node:child_process";
import { startWorkers, WorkersProcess } from "./workers-harness.js";
import { assertMovedAtMostTwice, movedBody } from "./moved-messages.js";

const BIN = join(import.meta.dirname, "..", "..", "..", "bin", "coney.js");
const OFF = ["--amqp-port", "0", "--http-port", "0", "--prometheus-port", "off", "--mqtt-port", "off", "--web-mqtt-port", "off", "--stomp-port", "off", "--web-stomp-port", "off", "--stream-port", "off", "--bind", "127.0.0.1"];

const QUEUES = ["kt-0", "kt-1", "kt-2", "kt-3"];
const PER_QUEUE = 4000;
const body = movedBody;

describe("coney --workers 2 killed -9 while it takes a single node's data over", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-takeover-killed-"));
  let p: WorkersProcess | null = null;
  after(async () => {
    await p?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the next start finishes it, losing nothing", async (t) => {
    const single = await startTestBroker({ dataDir });
    const c = await amqp.connect(single.amqpUrl);
    const ch = await c.createConfirmChannel();
    for (const q of QUEUES) {
      await ch.assertQueue(q, { durable: true });
      for (let k = 0; k < PER_QUEUE; k++) ch.sendToQueue(q, Buffer.from(body(q, k)), { persistent: true });
    }
    await ch.waitForConfirms();
    await c.close();
    await single.close();

    // The first start: killed -9 as soon as it says the takeover began (its files part way, or not yet touched).
    const child = spawn(process.execPath, [BIN, "--workers", "2", ...OFF, "--data-dir", dataDir, "--log-format", "json"], { stdio: ["ignore", "ignore", "pipe"] });
    const firstStart = new WorkersProcess(child, dataDir);
    await firstStart.logLine((l) => l.msg.startsWith("taking over a single node's data"), "the takeover's first line");
    child.kill("SIGKILL");
    await withTimeout(firstStart.exited, 10_000, "the killed primary's exit");
    const marker = JSON.parse(readFileSync(join(dataDir, "single-node-takeover.json"), "utf8")) as { state: string };
    const finished = firstStart.lines.some((l) => l.msg.startsWith("a single node's data taken over"));
    assert.equal(marker.state, finished ? "done" : "moving");
    t.diagnostic(`killed with the takeover ${marker.state}; the old store ${existsSync(join(dataDir, "messages")) ? "still there" : "removed"}`);

    // The next start finishes it (or finds it done).
    p = await startWorkers([], {}, dataDir);
    const again = p.lines.find((l) => l.msg.startsWith("a single node's data taken over"));
    assert.ok(finished || again !== undefined, "the takeover was finished by the second start");
    assert.ok(!existsSync(join(dataDir, "messages")), "the old store removed once done");
    const conn = await amqp.connect(p.amqpUrl);
    conn.on("error", () => {});
    const got = await conn.createChannel();
    const twice = await assertMovedAtMostTwice(got, QUEUES, PER_QUEUE);
    t.diagnostic(`messages moved twice: ${twice}`);
    await conn.close();
  });
});
