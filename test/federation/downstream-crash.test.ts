// The downstream broker killed -9 mid-stream: with ack-mode on-confirm the upstream acks a message
// only after the downstream stored it, so what was in flight goes back to the upstream queue, which
// keeps collecting; the restarted downstream starts its link from its saved definitions and every
// message published upstream arrives (duplicates allowed).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually, withTimeout } from "../helpers/wait.js";

const bin = new URL("../../../bin/coney.js", import.meta.url).pathname;

/** A downstream `coney` process; resolves with its AMQP and management ports once both listen. */
async function startDownstream(dataDir: string): Promise<{ child: ChildProcessByStdio<null, null, Readable>; amqpPort: number; httpPort: number }> {
  const child = spawn(process.execPath, [bin, "--amqp-port", "0", "--http-port", "0", "--prometheus-port", "off", "--bind", "127.0.0.1", "--data-dir", dataDir, "--cluster-name", "crashing-downstream"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  // Should the runner stop this file mid-test (a timeout), the child goes with it.
  const reap = (): void => void child.kill("SIGKILL");
  process.once("exit", reap);
  child.once("exit", () => process.off("exit", reap));
  let log = "";
  const ports = await withTimeout(
    new Promise<{ amqpPort: number; httpPort: number }>((resolve) => {
      child.stderr.on("data", (d: Buffer) => {
        log += d.toString();
        const a = /"msg":"Coney started","amqp_port":(\d+)/.exec(log);
        const h = /"msg":"management API listener started","port":(\d+)/.exec(log);
        if (a && h) resolve({ amqpPort: Number(a[1]), httpPort: Number(h[1]) });
      });
    }),
    15_000,
    "the downstream's listeners",
  );
  return { child, ...ports };
}

describe("federation link and a downstream killed -9", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-fed-dcrash-"));
  let up: TestBroker;
  let child: ChildProcessByStdio<null, null, Readable> | null = null;
  before(async () => {
    up = await startTestBroker({ clusterName: "steady-upstream" });
  });
  after(async () => {
    child?.kill("SIGKILL");
    await up?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("loses no confirmed message and resumes from the saved definitions", async () => {
    let d = await startDownstream(dataDir);
    child = d.child;
    let api = apiClient(() => `http://127.0.0.1:${d.httpPort}`);
    const dconn = await amqp.connect(`amqp://guest:guest@127.0.0.1:${d.amqpPort}`);
    const dch = await dconn.createChannel();
    await dch.assertExchange("fed.dcrash", "direct", { durable: true });
    await dch.assertQueue("sink", { durable: true });
    await dch.bindQueue("sink", "fed.dcrash", "k");
    await dconn.close();
    assert.equal((await api("PUT", "/api/parameters/federation-upstream/%2f/up", { value: { uri: up.amqpUrl, "reconnect-delay": 1, expires: 600_000 } })).status, 201);
    assert.equal((await api("PUT", "/api/policies/%2f/fed", { pattern: "^fed\\.", "apply-to": "exchanges", definition: { "federation-upstream": "up" } })).status, 201);
    await eventually(async () => ((await api("GET", "/api/federation-links")).json as { status: string }[])[0]?.status === "running", 15_000, "the link running");
    await eventually(async () => (await apiClient(() => up.httpUrl)("GET", "/api/exchanges/%2f/fed.dcrash/bindings/source")).json.length === 1, 15_000, "the upstream binding");

    // Publish 3,000 upstream (all confirmed: the upstream stays up); kill the downstream after 1,000.
    const pconn = await amqp.connect(up.amqpUrl);
    const pch = await pconn.createConfirmChannel();
    const ids: string[] = [];
    for (let batch = 0; batch < 30; batch++) {
      for (let i = 0; i < 100; i++) {
        const id = `m${batch * 100 + i}`;
        ids.push(id);
        pch.publish("fed.dcrash", "k", Buffer.from(id), { persistent: true, messageId: id });
      }
      await pch.waitForConfirms();
      if (batch === 9) {
        const exited = new Promise((resolve) => child!.on("exit", resolve));
        child.kill("SIGKILL");
        await withTimeout(exited, 5000, "the downstream to die");
      }
    }
    await pconn.close();

    d = await startDownstream(dataDir);
    child = d.child;
    api = apiClient(() => `http://127.0.0.1:${d.httpPort}`);
    await eventually(async () => ((await api("GET", "/api/federation-links")).json as { status: string }[])[0]?.status === "running", 15_000, "the link running after the restart");
    const conn = await amqp.connect(`amqp://guest:guest@127.0.0.1:${d.amqpPort}`);
    const ch = await conn.createChannel();
    const seen = new Set<string>();
    await ch.consume("sink", (m) => {
      if (m) {
        seen.add(m.properties.messageId as string);
        ch.ack(m);
      }
    });
    await eventually(() => ids.every((id) => seen.has(id)), 30_000, `all ${ids.length} messages downstream`);
    await conn.close();
  });
});
