// A stream survives kill -9 with every confirmed message (issue 24, docs/STREAMS.md "Recovery"):
// a publisher streams messages with confirms into a stream queue of a broker in a child process,
// the broker is killed with SIGKILL mid-stream, and a new broker on the same data dir has every
// confirmed message, in order, at the offsets it had, after cutting the torn last chunk.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { spawnChildBroker } from "./fault-harness.js";
import { withTimeout } from "../helpers/wait.js";

describe("stream queue under kill -9", { timeout: 90_000 }, () => {
  it("keeps every confirmed message, in order, after SIGKILL during publishing", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-stream-kill-"));
    try {
      const broker = await spawnChildBroker({ dataDir });
      const conn = await amqp.connect(broker.url);
      conn.on("error", () => {});
      const ch = await conn.createConfirmChannel();
      ch.on("error", () => {});
      await ch.assertQueue("st-kill", { durable: true, arguments: { "x-queue-type": "stream", "x-stream-max-segment-size-bytes": 64_000 } });
      const confirmed: number[] = [];
      let killed = false;
      // Publishes continuously, at most 500 unconfirmed at a time; each confirm is recorded; the
      // broker dies once 2,000 are confirmed, with more on their way.
      const deadline = Date.now() + 30_000;
      for (let i = 0; !killed; i++) {
        ch.sendToQueue("st-kill", Buffer.from(`k${i}`), {}, (err) => {
          if (err) return;
          confirmed.push(i);
          if (confirmed.length === 2000 && !killed) {
            killed = true;
            void broker.kill("SIGKILL");
          }
        });
        while (!killed && i + 1 - confirmed.length >= 500) {
          if (Date.now() > deadline) throw new Error(`the broker confirmed ${confirmed.length} messages in 30 s`);
          await new Promise((r) => setTimeout(r, 1));
        }
      }
      await broker.exited;
      const again = await spawnChildBroker({ dataDir });
      try {
        const c = await amqp.connect(again.url);
        const rch = await c.createChannel();
        await rch.prefetch(1000);
        const max = Math.max(...confirmed);
        const seen: Array<[string, number]> = [];
        await withTimeout(
          new Promise<void>((resolve) => {
            void rch.consume(
              "st-kill",
              (m) => {
                if (!m) return;
                seen.push([m.content.toString(), m.properties.headers!["x-stream-offset"] as number]);
                rch.ack(m);
                if (seen.length === max + 1) resolve();
              },
              { arguments: { "x-stream-offset": "first" } },
            );
          }),
          30_000,
          `the ${max + 1} messages up to the last confirmed one`,
        );
        // Every confirmed message is there; offsets are the publish order (one publisher, one channel).
        for (const i of confirmed) assert.deepEqual(seen[i], [`k${i}`, i]);
        await c.close();
      } finally {
        await again.kill("SIGTERM");
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
