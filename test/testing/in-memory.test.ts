// coney/testing and `coney --in-memory` (issue 29) store nothing and print nothing: run in a child
// process whose working directory, TMPDIR and HOME are fresh empty directories, which must still
// be empty after a broker has served AMQP, HTTP, MQTT and Prometheus clients and changed users
// (the audit trail), and whose stdout and stderr must be empty.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import amqp from "amqplib";
import { withTimeout } from "../helpers/wait.js";
import { startedAmqpPort } from "../helpers/coney-process.js";

const root = new URL("../../../", import.meta.url);
const testingModule = new URL("dist/src/testing/index.js", root).href;
const amqplibModule = pathToFileURL(join(new URL("node_modules/amqplib/channel_api.js", root).pathname)).href;
const coneyBin = new URL("bin/coney.js", root).pathname;

function emptyDirs(): { cwd: string; tmp: string; home: string; remove(): void } {
  const base = mkdtempSync(join(tmpdir(), "coney-in-memory-"));
  const d = { cwd: mkdtempSync(join(base, "cwd-")), tmp: mkdtempSync(join(base, "tmp-")), home: mkdtempSync(join(base, "home-")) };
  return { ...d, remove: () => rmSync(base, { recursive: true, force: true }) };
}

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr })));
}

const SCRIPT = `
import { startTestBroker } from ${JSON.stringify(testingModule)};
import amqp from ${JSON.stringify(amqplibModule)};
import { connect } from "node:net";
const broker = await startTestBroker({ http: true, prometheus: true, mqtt: true });
const conn = await amqp.connect(broker.amqpUrl);
const ch = await conn.createConfirmChannel();
await ch.assertQueue("kept", { durable: true });
for (let i = 0; i < 100; i++) ch.sendToQueue("kept", Buffer.alloc(10_000, i), { persistent: true });
await ch.waitForConfirms();
const headers = { authorization: broker.httpAuthorization, "content-type": "application/json" };
const put = await fetch(broker.httpUrl + "/api/users/alice", { method: "PUT", headers, body: JSON.stringify({ password: "pw", tags: "" }) });
const policy = await fetch(broker.httpUrl + "/api/policies/%2F/p", { method: "PUT", headers, body: JSON.stringify({ pattern: ".*", definition: { "max-length": 5 } }) });
const audit = await (await fetch(broker.httpUrl + "/api/coney/audit", { headers })).json();
const metrics = await (await fetch(broker.prometheusUrl)).text();
const port = Number(new URL(broker.mqttUrl).port);
const mqttSaid = await new Promise((resolve) => {
  const s = connect(port, "127.0.0.1", () => s.write(Buffer.from([0x10, 0x0c, 0, 4, 0x4d, 0x51, 0x54, 0x54, 4, 2, 0, 60, 0, 0])));
  s.once("data", (d) => { resolve(d[0]); s.destroy(); });
});
const ok = put.status === 201 && policy.status === 201 && (audit.items ?? audit).length > 0 && metrics.includes("rabbitmq_queues") && mqttSaid === 0x20 && broker.queue("kept").messageCount === 5;
await conn.close();
broker.reset();
await broker.close();
process.exitCode = ok ? 0 : 3;
`;

describe("in memory: nothing stored, nothing printed", () => {
  it("startTestBroker serves every protocol without a file, a directory or a line of output", async () => {
    const dirs = emptyDirs();
    try {
      const r = await withTimeout(run(["--input-type=module", "-e", SCRIPT], dirs.cwd, { ...process.env, TMPDIR: dirs.tmp, HOME: dirs.home, CONEY_TEST_LOG: "" }), 60_000, "the child broker");
      assert.equal(r.stderr, "");
      assert.equal(r.stdout, "");
      assert.equal(r.code, 0, "the child's checks passed");
      assert.deepEqual(readdirSync(dirs.cwd), [], "nothing in the working directory");
      assert.deepEqual(readdirSync(dirs.tmp), [], "nothing in TMPDIR");
      assert.deepEqual(readdirSync(dirs.home), [], "nothing in HOME");
    } finally {
      dirs.remove();
    }
  });

  it("coney --in-memory serves persistent messages and leaves no data directory behind", async () => {
    const dirs = emptyDirs();
    const child = spawn(process.execPath, [coneyBin, "--in-memory", "--amqp-port", "0", "--http-port", "0", "--prometheus-port", "off", "--mqtt-port", "off", "--web-mqtt-port", "off", "--stomp-port", "off", "--web-stomp-port", "off", "--stream-port", "off", "--bind", "127.0.0.1"], {
      cwd: dirs.cwd,
      env: { ...process.env, TMPDIR: dirs.tmp, HOME: dirs.home },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      const { port, stderr } = await startedAmqpPort(child);
      const conn = await amqp.connect(`amqp://guest:guest@127.0.0.1:${port}`);
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue("durable", { durable: true });
      ch.sendToQueue("durable", Buffer.from("kept in memory"), { persistent: true });
      await ch.waitForConfirms();
      const got = await ch.get("durable", { noAck: true });
      assert.ok(got);
      assert.equal(got.content.toString(), "kept in memory");
      await conn.close();
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      assert.equal(await withTimeout(exited, 10_000, "exit after SIGTERM"), 0);
      assert.match(stderr(), /in memory/i, "the log says nothing is kept");
      assert.deepEqual(readdirSync(dirs.cwd), [], "no ./coney-data");
      assert.deepEqual(readdirSync(dirs.tmp), []);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      dirs.remove();
    }
  });
});
