// Logging never takes the broker down: stderr on a full disk, or a pipe whose reader went away
// (EPIPE). The broker keeps serving; the lines it could not write are dropped and counted.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { fillDisk, tmpfsForSuite, spawnChildBroker, type ChildBroker } from "./fault-harness.js";

/** Logs on every kind of line (a refused login warns; connections log), then checks the broker still serves. */
async function exerciseAndCheck(b: ChildBroker): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await assert.rejects(amqp.connect(`amqp://guest:wrong@127.0.0.1:${b.amqpPort}`));
    const c = await amqp.connect(b.url);
    await c.close();
  }
  const conn = await amqp.connect(b.url);
  const ch = await conn.createConfirmChannel();
  await ch.assertQueue("still-serving", { durable: true });
  ch.sendToQueue("still-serving", Buffer.from("hello"), { persistent: true });
  await ch.waitForConfirms();
  const m = await ch.get("still-serving", { noAck: true });
  assert.ok(m !== false && m.content.toString() === "hello", "the broker still routes and delivers");
  await conn.close();
  assert.ok(b.alive(), "the broker process is still running");
}

describe("fault: the log cannot be written", () => {
  const mountPoint = tmpfsForSuite(16);

  it("survives stderr on a full disk (ENOSPC on every log line)", async () => {
    const logFile = join(mountPoint(), "coney.log");
    const fd = openSync(logFile, "w");
    // The data dir is elsewhere: only the log's file system is full.
    const dataDir = mkdtempSync(join(tmpdir(), "coney-log-fault-"));
    const b = await spawnChildBroker({ dataDir, stderrFd: fd, stderrFile: logFile, args: ["--log-level", "debug"] });
    closeSync(fd);
    const filler = fillDisk(mountPoint());
    try {
      await exerciseAndCheck(b);
    } finally {
      await b.kill();
      rmSync(filler, { force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("survives a log pipe whose reader has gone (EPIPE)", async () => {
    // The tmpfs is smaller than the default disk free limit: the alarm would block the publisher.
    const b = await spawnChildBroker({ dataDir: join(mountPoint(), "pipe-data"), args: ["--log-level", "debug", "--disk-free-limit", "0"] });
    try {
      b.child.stderr!.destroy();
      await exerciseAndCheck(b);
    } finally {
      await b.kill();
    }
  });
});
