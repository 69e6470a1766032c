// A client that vanishes without closing (a frozen process, SIGSTOP: its TCP connection stays
// open and silent): heartbeats close it within two intervals (plus one check), its unacked
// messages go back to their queue in order and marked redelivered, and its exclusive queue goes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import amqp from "amqplib";
import { startTestBroker } from "../helpers/broker.js";
import { eventually, withTimeout } from "../helpers/wait.js";
import { drain } from "../store/store-harness.js";

const clientScript = new URL("./frozen-client.js", import.meta.url).pathname;

describe("fault: a client that vanishes without closing", () => {
  it("is closed by heartbeats; its unacked messages return in order, redelivered; its exclusive queue goes", async () => {
    const b = await startTestBroker({ heartbeat: 1 });
    const client = spawn(process.execPath, [clientScript, b.amqpUrl, "5"], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      const conn = await amqp.connect(b.amqpUrl);
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue("work", { durable: true });
      for (let i = 0; i < 10; i++) ch.sendToQueue("work", Buffer.from(`m${i}`), { persistent: true });
      await ch.waitForConfirms();

      let out = "";
      const exclusive = await withTimeout(
        new Promise<string>((resolve) =>
          client.stdout.on("data", (d: Buffer) => {
            out += d.toString();
            const m = /ready (\S+)/.exec(out);
            if (m) resolve(m[1]!);
          }),
        ),
        10_000,
        "the client to hold 5 unacked messages",
      );
      const v = b.broker.vhost("/");
      assert.ok(v.queues.has(exclusive));
      assert.equal(v.queues.get("work")!.unacked, 5);
      const before = b.broker.connections.size;

      client.kill("SIGSTOP");
      const frozenAt = Date.now();
      // Two 1 s intervals of silence, checked every quarter interval: closed within 2.25 s of its last frame (the deadline leaves room for a loaded machine).
      await eventually(() => b.broker.connections.size === before - 1, 5000, "the broker to close the frozen client's connection");
      const took = Date.now() - frozenAt;
      assert.ok(took >= 1000, `not closed before the peer missed its heartbeats (${took} ms)`);

      assert.equal(v.queues.has(exclusive), false, "its exclusive queue is deleted");
      const work = v.queues.get("work")!;
      assert.equal(work.unacked, 0);
      const msgs = await drain(await conn.createChannel(), "work");
      assert.deepEqual(
        msgs.map((m) => [m.content.toString(), m.fields.redelivered]),
        [...Array.from({ length: 5 }, (_, i) => [`m${i}`, true]), ...Array.from({ length: 5 }, (_, i) => [`m${i + 5}`, false])],
        "the held messages come back first, in order, marked redelivered",
      );
      await conn.close();
    } finally {
      client.kill("SIGKILL");
      await b.close();
    }
  });
});
