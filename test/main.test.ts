// The `coney` binary as a user runs it: it logs the ports it bound, serves clients, and stops
// cleanly on SIGTERM (clients see 320 CONNECTION_FORCED).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import amqp from "amqplib";
import { withTimeout } from "./helpers/wait.js";
import { startedAmqpPort } from "./helpers/coney-process.js";

const bin = new URL("../../bin/coney.js", import.meta.url).pathname;

describe("coney binary", () => {
  it("starts on port 0, reports the bound port, and shuts down on SIGTERM", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-main-"));
    const child = spawn(process.execPath, [bin, "--amqp-port", "0", "--http-port", "0", "--prometheus-port", "0", "--bind", "127.0.0.1", "--data-dir", dataDir], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    const { port, stderr } = await startedAmqpPort(child);
    assert.ok(port > 0);
    assert.match(stderr(), /default user 'guest' exists with its default password/);
    const conn = await amqp.connect(`amqp://guest:guest@127.0.0.1:${port}`);
    conn.on("error", () => {});
    const closed = new Promise<unknown>((resolve) => conn.on("close", resolve));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    assert.equal(await withTimeout(exited, 10_000, "exit after SIGTERM"), 0);
    const err = (await withTimeout(closed, 5000, "connection close")) as { code?: number };
    assert.equal(err.code, 320);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("run as an executable (as npm links it), runs with V8's single-threaded collector", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-main-"));
    // The shebang's `env` finds node on PATH: the one running this test.
    const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}` };
    const child = spawn(bin, ["--amqp-port", "0", "--http-port", "off", "--prometheus-port", "off", "--mqtt-port", "off", "--web-mqtt-port", "off", "--stomp-port", "off", "--web-stomp-port", "off", "--stream-port", "off", "--bind", "127.0.0.1", "--data-dir", dataDir], { stdio: ["ignore", "ignore", "pipe"], env });
    await startedAmqpPort(child);
    const argv = readFileSync(`/proc/${child.pid}/cmdline`, "utf8").split("\0");
    assert.ok(argv.includes("--single-threaded-gc"), `argv: ${argv.join(" ")}`);
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    assert.equal(await withTimeout(exited, 10_000, "exit after SIGTERM"), 0);
    rmSync(dataDir, { recursive: true, force: true });
  });
});
