// The repository's AMQP client suites (test/amqp: amqplib, @cloudamqp/amqp-client and
// rabbitmq-client) run again against coney/testing's in-memory broker (issue 29): the harness
// (test/helpers/broker.ts) starts the test broker instead of a broker with a data dir when
// CONEY_TEST_STORE=memory. Tests that restart a broker on a data dir of their own keep it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const suites = fileURLToPath(new URL("../amqp/", import.meta.url));

describe("the AMQP client suites against the in-memory test broker", { timeout: 300_000 }, () => {
  it("pass as they do against a broker with a data dir", async () => {
    const files = readdirSync(suites).filter((f) => f.endsWith(".test.js")).map((f) => join(suites, f));
    assert.ok(files.length >= 15, `found the suites (${files.length})`);
    // NODE_TEST_CONTEXT would make the child runner report into this one instead of running.
    const { NODE_TEST_CONTEXT: _nested, ...env } = process.env;
    const child = spawn(process.execPath, ["--test", "--test-concurrency=1", "--test-reporter=tap", ...files], { env: { ...env, CONEY_TEST_STORE: "memory" }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    const count = (what: string): number => Number(new RegExp(`^# ${what} (\\d+)$`, "m").exec(out)?.[1] ?? -1);
    assert.equal(count("fail"), 0, out.split("\n").filter((l) => /not ok/.test(l)).join("\n"));
    assert.ok(count("pass") >= 100, `${count("pass")} tests passed`);
    assert.equal(code, 0);
  });
});
