// A port another program holds stops `coney` with one line naming the port, the setting that chose
// it and what to do, and exit code 1 — as a single process and as the workers of `--workers 2`
// (a newcomer's first `npm start` beside RabbitMQ, which holds 5672, 15672 and 25672).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withTimeout } from "../helpers/wait.js";
import { bindFailureText } from "../../src/listeners/bind-failure.js";
import { defaultConfig } from "../../src/config/config.js";

const bin = new URL("../../../bin/coney.js", import.meta.url).pathname;
const OFF = ["--mqtt-port", "off", "--web-mqtt-port", "off", "--stomp-port", "off", "--web-stomp-port", "off", "--stream-port", "off", "--prometheus-port", "off"];

/** Runs coney to its exit; resolves with its code and what it wrote to stderr. */
function runToExit(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return withTimeout(new Promise((resolve) => child.on("exit", (code) => resolve({ code, stderr }))), 30_000, "coney's exit");
}

describe("a port in use stops coney with one clear line", () => {
  let holder: Server;
  let held = 0;
  const dir = mkdtempSync(join(tmpdir(), "coney-port-in-use-"));
  before(async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    held = (holder.address() as AddressInfo).port;
  });
  after(() => {
    holder.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the AMQP port held: exit 1 and a line naming the port and --amqp-port, no stack", async () => {
    const { code, stderr } = await runToExit(["--bind", "127.0.0.1", "--amqp-port", String(held), "--http-port", "0", ...OFF, "--data-dir", join(dir, "one")]);
    assert.equal(code, 1, stderr);
    const line = stderr.split("\n").find((l) => l.startsWith("coney: "));
    assert.equal(line, `coney: cannot listen on port ${held} (127.0.0.1), set by --amqp-port: the address is already in use (another Coney, RabbitMQ or another program holds it); stop what holds it or choose another port with --amqp-port`);
    assert.doesNotMatch(stderr, /\n\s+at /, "no stack trace");
  });

  it("--workers 2: each worker says it in the same words and the primary exits 1", async () => {
    const { code, stderr } = await runToExit(["--workers", "2", "--bind", "127.0.0.1", "--amqp-port", String(held), "--http-port", "0", ...OFF, "--data-dir", join(dir, "workers")]);
    assert.equal(code, 1, stderr);
    assert.match(stderr, new RegExp(`coney worker: cannot listen on port ${held} \\(127\\.0\\.0\\.1\\), set by --amqp-port: the address is already in use`));
    assert.doesNotMatch(stderr, /\n\s+at /, "no stack trace");
  });

  it("other errors are not dressed as bind failures", () => {
    assert.equal(bindFailureText(new Error("disk full"), defaultConfig()), null);
    assert.equal(bindFailureText(Object.assign(new Error("x"), { code: "ENOSPC", port: 5 }), defaultConfig()), null);
    assert.match(bindFailureText(Object.assign(new Error("x"), { code: "EACCES", port: 80 }), defaultConfig())!, /^cannot listen on port 80 \(every interface\): permission denied/);
  });
});
