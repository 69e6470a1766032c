// Memory and disk alarms with tiny configured limits block a real publisher and release it.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { eventually, withTimeout } from "../helpers/wait.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { statfsSync } from "node:fs";
import { processProbe } from "../../src/broker/alarms/resource-alarms.js";

const GUEST = `Basic ${Buffer.from("guest:guest").toString("base64")}`;

describe("resource alarms", () => {
  let broker: TestBroker;
  const get = async (path: string) => {
    const res = await fetch(`${broker.httpUrl}${path}`, { headers: { authorization: GUEST } });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  before(async () => {
    broker = await startTestBroker({ memHighWatermark: 0.99, diskFreeLimit: 0 });
  });
  after(async () => {
    await broker.close();
  });

  for (const [resource, on, off, reason] of [
    ["memory", { memHighWatermark: 1e-9 }, { memHighWatermark: 0.99 }, "low on memory"],
    ["disk", { diskFreeLimit: Number.MAX_SAFE_INTEGER }, { diskFreeLimit: 0 }, "low on disk"],
  ] as const) {
    it(`block a publishing connection on the ${resource} alarm, report it, and unblock when it clears`, async () => {
      assert.deepEqual((await get("/api/health/checks/alarms")).json, { status: "ok" });
      const conn = await amqp.connect(broker.amqpUrl);
      const idle = await amqp.connect(broker.amqpUrl);
      let idleBlocked = false;
      idle.on("blocked", () => (idleBlocked = true));
      const ch = await conn.createChannel();
      const q = `alarm-${resource}`;
      await ch.assertQueue(q);
      const blocked = new Promise<string>((resolve) => conn.once("blocked", resolve));
      const unblocked = new Promise<void>((resolve) => conn.once("unblocked", () => resolve()));

      broker.alarms.setLimits(on);
      const health = await get("/api/health/checks/alarms");
      assert.equal(health.status, 503);
      assert.equal(health.json["reason"], "There are alarms in effect in the cluster");
      assert.equal((await get("/api/health/checks/local-alarms")).status, 503);
      const [node] = (await get("/api/nodes")).json as unknown as Array<Record<string, unknown>>;
      assert.equal(node![resource === "memory" ? "mem_alarm" : "disk_free_alarm"], true);

      ch.sendToQueue(q, Buffer.from("while blocked"));
      assert.equal(await withTimeout(blocked, 5000, "connection.blocked"), reason);
      ch.sendToQueue(q, Buffer.from("also held"));
      const held = await get(`/api/queues/%2F/${q}`);
      assert.ok(Number(held.json["messages"]) <= 1, "nothing after the blocking publish is read");
      assert.equal(idleBlocked, false, "a connection that does not publish is not blocked");

      broker.alarms.setLimits(off);
      await withTimeout(unblocked, 5000, "connection.unblocked");
      await eventually(async () => (await ch.checkQueue(q)).messageCount === 2, 5000, "both messages");
      assert.deepEqual((await get("/api/health/checks/local-alarms")).json, { status: "ok" });
      await conn.close();
      await idle.close();
    });
  }

  it("a connection blocked by an alarm still receives deliveries (the alarm stops its publishing only, as RabbitMQ's)", async () => {
    const conn = await amqp.connect(broker.amqpUrl);
    const other = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createChannel();
    const q = "alarm-deliveries";
    await ch.assertQueue(q);
    const got: string[] = [];
    let arrived!: () => void;
    const second = new Promise<void>((resolve) => (arrived = resolve));
    await ch.consume(q, (m) => {
      if (m === null) return;
      got.push(m.content.toString());
      if (got.length === 2) arrived();
    }, { noAck: true });
    const blocked = new Promise<string>((resolve) => conn.once("blocked", resolve));
    broker.alarms.setLimits({ diskFreeLimit: Number.MAX_SAFE_INTEGER });
    try {
      ch.sendToQueue(q, Buffer.from("the blocking publish"));
      await withTimeout(blocked, 5000, "connection.blocked");
      // Another connection's publish (it is handled before that connection is blocked in turn) reaches the blocked one's consumer.
      const och = await other.createChannel();
      och.sendToQueue(q, Buffer.from("to a blocked consumer"));
      await withTimeout(second, 5000, "the delivery to the blocked connection");
      assert.deepEqual(got, ["the blocking publish", "to a blocked consumer"]);
    } finally {
      broker.alarms.setLimits({ diskFreeLimit: 0 });
    }
    await conn.close();
    await other.close();
  });

  it("a data dir not made yet is measured on its nearest existing parent's file system, not taken as a full disk", () => {
    const s = statfsSync(tmpdir());
    const free = processProbe.diskFree(join(tmpdir(), "coney-not-made-yet", "nodes", "w0"));
    // The same file system as its parent: within what others wrote meanwhile, never 0.
    assert.ok(free > 0 && Math.abs(free - s.bavail * s.bsize) < 1024 * 1024 * 1024, `free ${free}`);
  });
});
