// A workers data dir taken back by `coney` (no --workers), with the single node killed -9 while it
// moves the data (src/workers/workers-to-single-node.ts): the next start finishes the move and no
// message is lost; a message can come twice only if the kill fell between the single store's fsync
// and the group stores' acknowledgements (documented), never three times, and every queue keeps
// its order. Where the kill lands varies from run to run; what is checked holds wherever it lands.
// Real `node bin/coney.js --workers 2`, real `node bin/coney.js` processes, amqplib.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import amqp from "amqplib";
import { withTimeout } from "../helpers/wait.js";
import { startWorkers, WorkersProcess } from "./workers-harness.js";
import { assertMovedAtMostTwice, movedBody } from "./moved-messages.js";

const BIN = join(import.meta.dirname, "..", "..", "..", "bin", "coney.js");
const OFF = ["--amqp-port", "0", "--http-port", "0", "--prometheus-port", "off", "--mqtt-port", "off", "--web-mqtt-port", "off", "--stomp-port", "off", "--web-stomp-port", "off", "--stream-port", "off", "--bind", "127.0.0.1"];

const QUEUES = ["kb-0", "kb-1", "kb-2", "kb-3"];
const PER_QUEUE = 4000;
const body = movedBody;

function spawnSingle(dataDir: string): WorkersProcess {
  const child = spawn(process.execPath, [BIN, ...OFF, "--data-dir", dataDir, "--log-format", "json"], { stdio: ["ignore", "ignore", "pipe"] });
  const reap = (): void => void child.kill("SIGKILL");
  process.once("exit", reap);
  child.once("exit", () => process.off("exit", reap));
  return new WorkersProcess(child, dataDir);
}

describe("coney killed -9 while it takes a workers data dir back", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-takeback-killed-"));
  let p: WorkersProcess | null = null;
  after(async () => {
    await p?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the next start finishes it, losing nothing", async (t) => {
    const w = await startWorkers([], {}, dataDir);
    const c = await amqp.connect(w.amqpUrl);
    c.on("error", () => {});
    const ch = await c.createConfirmChannel();
    for (const q of QUEUES) {
      await ch.assertQueue(q, { durable: true });
      for (let k = 0; k < PER_QUEUE; k++) ch.sendToQueue(q, Buffer.from(body(q, k)), { persistent: true });
    }
    await ch.waitForConfirms();
    await c.close();
    w.child.kill("SIGTERM");
    await withTimeout(w.exited, 30_000, "the workers' stop");

    // The first start: killed -9 as soon as it says the move began (its files part way, or not yet touched).
    const first = spawnSingle(dataDir);
    await first.logLine((l) => l.msg.startsWith("taking the data of coney --workers back"), "the move's first line");
    first.child.kill("SIGKILL");
    await withTimeout(first.exited, 10_000, "the killed node's exit");
    const marker = JSON.parse(readFileSync(join(dataDir, "workers-to-single-node.json"), "utf8")) as { state: string };
    const finished = first.lines.some((l) => l.msg.startsWith("the data of coney --workers taken back"));
    assert.equal(marker.state, finished ? "done" : "moving");
    t.diagnostic(`killed with the move ${marker.state}; the group stores ${existsSync(join(dataDir, "groups")) ? "still there" : "removed"}`);

    // The next start finishes it (or finds it done).
    p = spawnSingle(dataDir);
    const started = await p.logLine((l) => l.msg === "Coney started", "the second start");
    p.amqpPort = started["amqp_port"] as number;
    assert.ok(finished || p.lines.some((l) => l.msg.startsWith("the data of coney --workers taken back")), "the move was finished by the second start");
    assert.ok(!existsSync(join(dataDir, "groups")) && !existsSync(join(dataDir, "workers.json")), "the group stores removed, the table aside, once done");
    const conn = await amqp.connect(`amqp://guest:guest@127.0.0.1:${p.amqpPort}`);
    conn.on("error", () => {});
    const got = await conn.createChannel();
    const twice = await assertMovedAtMostTwice(got, QUEUES, PER_QUEUE);
    t.diagnostic(`messages moved twice: ${twice}`);
    await conn.close();
  });
});
