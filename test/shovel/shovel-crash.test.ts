// At-least-once across crashes: a shovel's destination broker killed -9 mid-shovel loses no
// message (on-confirm: the source is acked only for what the destination confirmed; the rest is
// requeued and sent again, duplicates allowed), and a source broker restarted is consumed again
// once it is back. The crashing brokers are child processes (`coney`), restarted on their port
// and data dir.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { startedAmqpPort } from "../helpers/coney-process.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually, withTimeout } from "../helpers/wait.js";
import { drain, drainDistinct, publishConfirmed, queueCounts, waitForState } from "./shovel-helpers.js";

const bin = new URL("../../../bin/coney.js", import.meta.url).pathname;

type Child = ChildProcessByStdio<null, null, Readable>;

async function startChild(dataDir: string, port: number): Promise<{ child: Child; port: number }> {
  const child = spawn(process.execPath, [bin, "--amqp-port", String(port), "--http-port", "0", "--bind", "127.0.0.1", "--data-dir", dataDir], { stdio: ["ignore", "ignore", "pipe"] });
  // Should the runner stop this file mid-test (a timeout), the child goes with it.
  const reap = (): void => void child.kill("SIGKILL");
  process.once("exit", reap);
  child.once("exit", () => process.off("exit", reap));
  const started = await startedAmqpPort(child, 20_000);
  return { child, port: started.port };
}

async function kill9(child: Child): Promise<void> {
  const exited = new Promise((resolve) => child.on("exit", resolve));
  child.kill("SIGKILL");
  await withTimeout(exited, 10_000, "the child's exit");
}

async function readyCount(url: string, queue: string): Promise<number> {
  const conn = await amqp.connect(url);
  try {
    const ch = await conn.createChannel();
    ch.on("error", () => {});
    return (await ch.checkQueue(queue)).messageCount;
  } catch {
    return 0;
  } finally {
    await conn.close().catch(() => {});
  }
}

describe("shovels across crashes", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("a destination killed -9 mid-shovel loses nothing (on-confirm)", async () => {
    const a: TestBroker = await startTestBroker();
    cleanups.push(() => a.close());
    const api = apiClient(() => a.httpUrl);
    const dataDir = mkdtempSync(join(tmpdir(), "coney-shovel-dest-"));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    let dest = await startChild(dataDir, 0);
    cleanups.push(() => void dest.child.kill("SIGKILL"));
    const destUrl = `amqp://guest:guest@127.0.0.1:${dest.port}/%2f`;
    const total = 20_000;
    await publishConfirmed(a.amqpUrl, total, { queue: "k9-src" }, 100);
    await api("PUT", "/api/parameters/shovel/%2f/k9", { value: { "src-uri": "amqp://", "src-queue": "k9-src", "dest-uri": destUrl, "dest-queue": "k9-dest", "reconnect-delay": 1 } });
    await eventually(async () => (await readyCount(destUrl, "k9-dest")) >= 200, 20_000, "the shovel under way");
    await kill9(dest.child);
    const left = await queueCounts(api, "/", "k9-src");
    assert.ok(left !== null && left.messages + left.unacked > 0, "killed mid-shovel: the source still held messages");
    dest = await startChild(dataDir, dest.port);
    await eventually(async () => {
      const c = await queueCounts(api, "/", "k9-src");
      return c?.messages === 0 && c.unacked === 0;
    }, 60_000, "the source emptied after the restart");
    await waitForState(api, "/", "k9", "running");
    // Duplicates are allowed (requeued after the crash and sent again): wait for every id, not a count.
    const got = await drainDistinct(destUrl, "k9-dest", total, 60_000);
    const ids = new Set(got.map((m) => m.properties.messageId as string));
    const missing = Array.from({ length: total }, (_, i) => String(i)).filter((id) => !ids.has(id));
    assert.deepEqual(missing.slice(0, 10), [], `${missing.length} lost`);
    await api("DELETE", "/api/parameters/shovel/%2f/k9");
  });

  it("a source broker restarted is consumed again once it is back", async () => {
    const b: TestBroker = await startTestBroker();
    cleanups.push(() => b.close());
    const api = apiClient(() => b.httpUrl);
    const dataDir = mkdtempSync(join(tmpdir(), "coney-shovel-src-"));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    let src = await startChild(dataDir, 0);
    cleanups.push(() => void src.child.kill("SIGKILL"));
    const srcUrl = `amqp://guest:guest@127.0.0.1:${src.port}/%2f`;
    await publishConfirmed(srcUrl, 10, { queue: "rs-src" });
    await api("PUT", "/api/parameters/shovel/%2f/rs", { value: { "src-uri": srcUrl, "src-queue": "rs-src", "dest-uri": "amqp://", "dest-queue": "rs-dest", "reconnect-delay": 1 } });
    await eventually(async () => (await queueCounts(api, "/", "rs-dest"))?.messages === 10, 20_000, "the first ten");
    await eventually(async () => (await queueCounts(api, "/", "rs-dest"))?.messages === 10 && (await readyCount(srcUrl, "rs-src")) === 0, 20_000, "the source settled");
    await kill9(src.child);
    const down = await waitForState(api, "/", "rs", "terminated");
    assert.match(down["reason"] as string, /source connection failed/);
    src = await startChild(dataDir, src.port);
    await waitForState(api, "/", "rs", "running", 20_000);
    await publishConfirmed(srcUrl, 10, { queue: "rs-src" });
    // The first ten may come again (acks in flight when the source died): at least once.
    const got = await drain(b.amqpUrl, "rs-dest", 20, 20_000);
    const ids = new Set(got.map((m) => m.properties.messageId as string));
    assert.equal(ids.size, 10, "ids 0..9 twice over: the first ten and the ten after the restart");
    assert.ok(got.length >= 20);
    await api("DELETE", "/api/parameters/shovel/%2f/rs");
  });
});
