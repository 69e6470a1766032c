// Crashes and damaged files: kill -9 during confirmed publishing, a truncated segment, flipped bytes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp, { type ConfirmChannel } from "amqplib";
import { mustGet } from "../helpers/amqplib-get.js";
import { startTestBroker } from "../helpers/broker.js";
import { eventually } from "../helpers/wait.js";
import { readRecord } from "../../src/store/message-record.js";
import { SEGMENT_MAGIC } from "../../src/store/segment.js";
import { capturingLogger, drain, spawnBroker } from "./store-harness.js";

const tmp = (): string => mkdtempSync(join(tmpdir(), "coney-crash-"));

/** Publishes persistent messages with up to 100 unconfirmed, until told to stop; records confirmed ids. */
async function publishUntilStopped(ch: ConfirmChannel, k: number, confirmed: Set<string>, stop: { now: boolean }): Promise<void> {
  let inflight = 0;
  let wake: (() => void) | null = null;
  for (let i = 0; !stop.now; i++) {
    while (inflight >= 100 && !stop.now) await new Promise<void>((r) => (wake = r));
    if (stop.now) return;
    inflight++;
    const id = `${k}-${i}`;
    ch.sendToQueue("crash-q", Buffer.from(id), { persistent: true, messageId: id }, (err: unknown) => {
      inflight--;
      if (err === null || err === undefined) confirmed.add(id);
      const w = wake;
      wake = null;
      w?.();
    });
  }
}

/** Publishes `n` persistent messages (body "m<i>") to a durable queue, then stops the broker cleanly. */
async function storeMessages(dataDir: string, n: number): Promise<void> {
  const b = await startTestBroker({ dataDir });
  const conn = await amqp.connect(b.amqpUrl);
  const ch = await conn.createConfirmChannel();
  await ch.assertQueue("q", { durable: true });
  for (let i = 0; i < n; i++) ch.sendToQueue("q", Buffer.from(`m${i}`.padEnd(100, ".")), { persistent: true });
  await ch.waitForConfirms();
  await conn.close();
  await b.close();
}

/** The start offsets of the records in the newest segment. */
function lastSegment(dataDir: string): { path: string; offsets: number[] } {
  const dir = join(dataDir, "messages");
  const name = readdirSync(dir).filter((f) => f.endsWith(".seg")).sort().pop()!;
  const path = join(dir, name);
  const buf = readFileSync(path);
  const offsets: number[] = [];
  for (let pos = SEGMENT_MAGIC.length; ; ) {
    const r = readRecord(buf, pos);
    if (r.status !== "ok") break;
    offsets.push(pos);
    pos = r.next;
  }
  return { path, offsets };
}

/** The bodies in queue "q" after a restart; the broker's log lines are appended to `lines`. */
async function bodiesAfterRestart(dataDir: string, lines: string[]): Promise<string[]> {
  const captured = capturingLogger();
  const b = await startTestBroker({ dataDir, logger: captured.logger });
  const conn = await amqp.connect(b.amqpUrl);
  const ch = await conn.createChannel();
  const bodies = (await drain(ch, "q")).map((m) => m.content.toString().replace(/\.+$/, ""));
  await conn.close();
  await b.close();
  lines.push(...captured.lines);
  return bodies;
}

const range = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `m${from + i}`);

describe("crash safety", () => {
  it("keeps every confirmed message when the broker is killed with SIGKILL during publishing from several connections", async () => {
    const dataDir = tmp();
    const broker = await spawnBroker(dataDir);
    const conns = await Promise.all([0, 1, 2].map(() => amqp.connect(broker.url)));
    for (const c of conns) c.on("error", () => {});
    const chans = await Promise.all(conns.map((c) => c.createConfirmChannel()));
    for (const ch of chans) ch.on("error", () => {});
    await chans[0]!.assertQueue("crash-q", { durable: true });
    const confirmed = new Set<string>();
    const stop = { now: false };
    chans.forEach((ch, k) => void publishUntilStopped(ch, k, confirmed, stop));
    await eventually(() => confirmed.size >= 1500, 20_000, "1500 confirms");
    stop.now = true;
    const confirmedAtKill = new Set(confirmed);
    await broker.kill();

    const after = await startTestBroker({ dataDir });
    const conn = await amqp.connect(after.amqpUrl);
    const ch = await conn.createChannel();
    const present = new Set((await drain(ch, "crash-q")).map((m) => String(m.properties.messageId)));
    const lost = [...confirmedAtKill].filter((id) => !present.has(id));
    assert.deepEqual(lost, [], `${lost.length} confirmed messages lost of ${confirmedAtKill.size}`);
    await conn.close();
    await after.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("marks every message redelivered after a SIGKILL, and only delivered ones after a clean stop", async () => {
    const dataDir = tmp();
    const broker = await spawnBroker(dataDir);
    const conn = await amqp.connect(broker.url);
    conn.on("error", () => {});
    const ch = await conn.createConfirmChannel();
    ch.on("error", () => {});
    await ch.assertQueue("kill-q", { durable: true });
    for (let i = 0; i < 20; i++) ch.sendToQueue("kill-q", Buffer.from(String(i)), { persistent: true });
    await ch.waitForConfirms();
    await ch.prefetch(5);
    const got = new Promise<void>((resolve) => {
      let n = 0;
      void ch.consume("kill-q", () => {
        if (++n === 5) resolve();
      });
    });
    await got;
    // Killed right after the deliveries went out: their marks may or may not be on disk.
    await broker.kill();

    const after = await startTestBroker({ dataDir });
    const c2 = await amqp.connect(after.amqpUrl);
    const ch2 = await c2.createChannel();
    const back = await drain(ch2, "kill-q", false);
    assert.equal(back.length, 20);
    assert.deepEqual(back.filter((m) => !m.fields.redelivered).map((m) => m.content.toString()), [], "after an unclean stop any message may have been delivered");
    ch2.nackAll(true);
    await c2.close();
    await after.close();

    // A clean stop recorded every delivery: a second restart marks exactly what was delivered (all, here).
    const again = await startTestBroker({ dataDir });
    const c3 = await amqp.connect(again.amqpUrl);
    const ch3 = await c3.createConfirmChannel();
    await ch3.assertQueue("fresh-q", { durable: true });
    ch3.sendToQueue("fresh-q", Buffer.from("never delivered"), { persistent: true });
    await ch3.waitForConfirms(); // amqplib's connection.close overtakes frames it has not sent yet
    await c3.close();
    await again.close();
    const last = await startTestBroker({ dataDir });
    const c4 = await amqp.connect(last.amqpUrl);
    const ch4 = await c4.createChannel();
    assert.equal((await mustGet(ch4, "fresh-q", { noAck: true })).fields.redelivered, false, "clean stop: an undelivered message is not redelivered");
    await c4.close();
    await last.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("starts with a truncated last segment: the torn record is skipped and logged, the others come back", async () => {
    const dataDir = tmp();
    await storeMessages(dataDir, 10);
    const { path } = lastSegment(dataDir);
    truncateSync(path, readFileSync(path).length - 20);
    const lines: string[] = [];
    assert.deepEqual(await bodiesAfterRestart(dataDir, lines), range(0, 9));
    assert.ok(lines.some((l) => l.includes("torn record")), lines.join("\n"));
    // The store goes on appending to a fresh segment.
    await storeMessages(dataDir, 3);
    assert.deepEqual(await bodiesAfterRestart(dataDir, []), range(0, 3));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("ignores a torn entry at the end of an ack file and keeps the acks before it", async () => {
    const dataDir = tmp();
    await storeMessages(dataDir, 10);
    const b = await startTestBroker({ dataDir });
    const conn = await amqp.connect(b.amqpUrl);
    const ch = await conn.createChannel();
    for (let i = 0; i < 4; i++) ch.ack(await mustGet(ch, "q"));
    // amqplib may write connection.close before a channel's last ack: wait until the broker has them.
    await eventually(() => b.broker.vhost("/").queues.get("q")!.stats.ack === 4, 5000, "4 acks");
    await conn.close();
    await b.close();
    const { path } = lastSegment(dataDir);
    appendFileSync(path.replace(/\.seg$/, ".acks"), Buffer.from([1, 2]));
    const lines: string[] = [];
    assert.deepEqual(await bodiesAfterRestart(dataDir, lines), range(4, 10));
    assert.ok(lines.some((l) => l.includes("torn entry at the end of an ack file")), lines.join("\n"));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("skips records whose checksum does not match, at the tail and in the middle, and logs them", async () => {
    const dataDir = tmp();
    await storeMessages(dataDir, 10);
    const { path, offsets } = lastSegment(dataDir);
    assert.equal(offsets.length, 10);
    const buf = readFileSync(path);
    buf[offsets[4]! + 60]! ^= 0x01;
    buf[buf.length - 5]! ^= 0x40;
    writeFileSync(path, buf);
    const lines: string[] = [];
    assert.deepEqual(await bodiesAfterRestart(dataDir, lines), [...range(0, 4), ...range(5, 9)]);
    assert.equal(lines.filter((l) => l.includes("bad checksum")).length, 2, lines.join("\n"));
    rmSync(dataDir, { recursive: true, force: true });
  });
});
