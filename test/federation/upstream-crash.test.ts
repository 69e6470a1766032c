// An upstream broker killed -9 mid-stream and restarted: the exchange link goes to error with
// the reason, comes back by itself after reconnect-delay, and with ack-mode on-confirm every
// message the upstream confirmed to its publisher reaches the downstream (duplicates allowed).
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
import { startedAmqpPort } from "../helpers/coney-process.js";
import { eventually, withTimeout } from "../helpers/wait.js";

const bin = new URL("../../../bin/coney.js", import.meta.url).pathname;

function startUpstream(dataDir: string, port: number): ChildProcessByStdio<null, null, Readable> {
  const child = spawn(process.execPath, [bin, "--amqp-port", String(port), "--http-port", "off", "--prometheus-port", "off", "--bind", "127.0.0.1", "--data-dir", dataDir, "--cluster-name", "crashing-upstream"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  // Should the runner stop this file mid-test (a timeout), the child goes with it.
  const reap = (): void => void child.kill("SIGKILL");
  process.once("exit", reap);
  child.once("exit", () => process.off("exit", reap));
  return child;
}

describe("federation link and an upstream killed -9", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-fed-crash-"));
  let child: ChildProcessByStdio<null, null, Readable> | null = null;
  let down: TestBroker;
  const api = apiClient(() => down.httpUrl);
  before(async () => {
    down = await startTestBroker({ clusterName: "downstream" });
  });
  after(async () => {
    child?.kill("SIGKILL");
    await down?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("reports the error, reconnects, and loses no confirmed message", async () => {
    child = startUpstream(dataDir, 0);
    const { port } = await startedAmqpPort(child);
    const upUrl = `amqp://guest:guest@127.0.0.1:${port}`;
    // The downstream side: a durable queue bound to the federated exchange.
    const dconn = await amqp.connect(down.amqpUrl);
    const dch = await dconn.createChannel();
    await dch.assertExchange("fed.crash", "topic", { durable: true });
    await dch.assertQueue("sink", { durable: true });
    await dch.bindQueue("sink", "fed.crash", "#");
    assert.equal((await api("PUT", "/api/parameters/federation-upstream/%2f/up", { value: { uri: upUrl, "reconnect-delay": 1 } })).status, 201);
    assert.equal((await api("PUT", "/api/policies/%2f/fed", { pattern: "^fed\\.", "apply-to": "exchanges", definition: { "federation-upstream": "up" } })).status, 201);
    const linkStatus = async (): Promise<Record<string, unknown>> => ((await api("GET", "/api/federation-links")).json as Record<string, unknown>[])[0] ?? {};
    await eventually(async () => (await linkStatus())["status"] === "running", 10_000, "the link running");

    // Publish with confirms until the upstream dies; remember what it confirmed.
    const confirmed = new Set<string>();
    const pconn = await amqp.connect(upUrl);
    pconn.on("error", () => {});
    const pch = await pconn.createConfirmChannel();
    pch.on("error", () => {});
    const publishing = (async () => {
      for (let batch = 0; ; batch++) {
        const ids = Array.from({ length: 50 }, (_, i) => `m${batch * 50 + i}`);
        for (const id of ids) pch.publish("fed.crash", "k", Buffer.from(id), { persistent: true, messageId: id });
        try {
          await pch.waitForConfirms();
        } catch {
          return;
        }
        for (const id of ids) confirmed.add(id);
      }
    })();
    await eventually(() => confirmed.size >= 500, 20_000, "500 confirmed publishes");
    const exited = new Promise((resolve) => child!.on("exit", resolve));
    child.kill("SIGKILL");
    await withTimeout(exited, 15_000, "the upstream to die");
    await withTimeout(publishing, 10_000, "the publisher to notice");
    await eventually(async () => (await linkStatus())["status"] === "error", 10_000, "the link in error");
    const failed = await linkStatus();
    assert.equal(typeof failed["error"], "string");
    assert.ok((failed["error"] as string).length > 0, "the link says why it is down");

    // The upstream comes back on the same port and data dir; the link reconnects by itself.
    child = startUpstream(dataDir, port);
    await startedAmqpPort(child);
    await eventually(async () => (await linkStatus())["status"] === "running", 15_000, "the link running again");

    const seen = new Set<string>();
    await dch.consume("sink", (m) => {
      if (m) {
        seen.add(m.properties.messageId as string);
        dch.ack(m);
      }
    });
    await eventually(() => [...confirmed].every((id) => seen.has(id)), 20_000, `all ${confirmed.size} confirmed messages downstream`);
    await dconn.close();
  });
});
