// Message TTL (x-message-ttl and per-message expiration) and queue expiry (x-expires), with
// RabbitMQ's semantics: expired messages are never delivered and are dead-lettered (reason
// expired) when the queue has a DLX; an unused queue is deleted after x-expires.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { deathsOf, nextMessage } from "../helpers/next-message.js";
import { eventually, withTimeout } from "../helpers/wait.js";

describe("message TTL and queue expiry", () => {
  const f = useBrokerWithConnection();

  /** A passive declare (which is not "use" for x-expires) on a throwaway channel: true once the queue is gone. */
  const queueGone = async (name: string): Promise<boolean> => {
    const probe = await f.conn.createChannel();
    probe.on("error", () => {});
    return probe.checkQueue(name).then(
      () => probe.close().then(() => false),
      () => true,
    );
  };

  it("x-message-ttl: expired messages are not delivered and go to the DLX (reason expired)", async () => {
    const ch = await f.conn.createChannel();
    await ch.assertQueue("ttl.dead", { durable: false });
    await ch.assertQueue("ttl.q", { durable: false, arguments: { "x-message-ttl": 50, "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "ttl.dead" } });
    ch.sendToQueue("ttl.q", Buffer.from("old"));
    const dead = await nextMessage(ch, "ttl.dead");
    assert.equal(dead.content.toString(), "old");
    const d = deathsOf(dead)[0]!;
    assert.equal(d["reason"], "expired");
    assert.equal(d["queue"], "ttl.q");
    assert.equal(d["original-expiration"], undefined, "no per-message expiration, none recorded");
    assert.equal((await ch.checkQueue("ttl.q")).messageCount, 0);
    ch.ack(dead);
    assert.equal(await ch.get("ttl.q"), false);
    await ch.close();
  });

  it("per-message expiration: the smaller of it and the queue TTL applies, checked at the head", async () => {
    const ch = await f.conn.createChannel();
    await ch.assertQueue("exp.q", { durable: false, arguments: { "x-message-ttl": 60000 } });
    ch.sendToQueue("exp.q", Buffer.from("short"), { expiration: "40" });
    ch.sendToQueue("exp.q", Buffer.from("long"));
    await eventually(async () => (await ch.checkQueue("exp.q")).messageCount === 1, 3000, "the short-lived message to expire");
    const m = await ch.get("exp.q", { noAck: true });
    assert.ok(m);
    assert.equal(m.content.toString(), "long");
    await ch.close();
  });

  it("a message TTL of 0 delivers to a waiting consumer, and otherwise expires at once", async () => {
    const ch = await f.conn.createChannel();
    await ch.assertQueue("ttl0", { durable: false, arguments: { "x-message-ttl": 0 } });
    ch.sendToQueue("ttl0", Buffer.from("nobody waits"));
    await eventually(async () => (await ch.checkQueue("ttl0")).messageCount === 0, 2000, "ttl0 empty");
    const got = nextMessage(ch, "ttl0");
    await eventually(async () => (await ch.checkQueue("ttl0")).consumerCount === 1);
    ch.sendToQueue("ttl0", Buffer.from("taken"));
    const m = await got;
    assert.equal(m.content.toString(), "taken");
    ch.ack(m);
    await ch.close();
  });

  it("x-expires deletes an unused queue; use keeps it", async () => {
    const ch = await f.conn.createChannel();
    // "kept" gets its consumer one round trip after its declaration; 400 ms leaves a loaded CI
    // machine room for that round trip, and "expiring" still goes well within the wait.
    await ch.assertQueue("kept", { durable: false, arguments: { "x-expires": 400 } });
    const { consumerTag } = await ch.consume("kept", () => {}, { noAck: true });
    await ch.assertQueue("expiring", { durable: false, arguments: { "x-expires": 400 } });
    await eventually(() => queueGone("expiring"), 3000, "queue 'expiring' to be deleted");
    const kept = await ch.checkQueue("kept");
    assert.equal(kept.consumerCount, 1, "a queue with a consumer does not expire");
    await ch.cancel(consumerTag);
    await ch.deleteQueue("kept");
    await ch.close();
  });

  it("x-expires: a redeclare or a basic.get counts as use", async () => {
    const ch = await f.conn.createChannel();
    // 600 ms: uses 50 ms apart stay far inside it even when a loaded machine stalls a turn.
    await ch.assertQueue("exp.used", { durable: false, arguments: { "x-expires": 600 } });
    // Use it every 50 ms for 1.5 s (more than twice its expiry): it must survive.
    const until = Date.now() + 1500;
    for (let i = 0; Date.now() < until; i++) {
      await new Promise((r) => setTimeout(r, 50));
      if (i % 2 === 0) await ch.assertQueue("exp.used", { durable: false, arguments: { "x-expires": 600 } });
      else await ch.get("exp.used");
    }
    assert.equal((await ch.checkQueue("exp.used")).messageCount, 0, "still there");
    await ch.close();
    await eventually(() => queueGone("exp.used"), 3000, "exp.used to expire once unused");
  });
});

describe("per-message expiration validation", () => {
  const f = useBrokerWithConnection();

  it("refuses a publish with an invalid expiration (406, RabbitMQ's text)", async () => {
    for (const [expiration, text] of [
      ["-5", "invalid expiration '-5': {value_negative,-5}"],
      ["soon", "invalid expiration 'soon': no_integer"],
      ["10s", `invalid expiration '10s': {leftover_string,"s"}`],
    ] as const) {
      const ch = await f.conn.createChannel();
      const err = new Promise<string>((resolve) => ch.on("error", (e: Error) => resolve(e.message)));
      ch.sendToQueue("amq.nowhere", Buffer.from("x"), { expiration });
      assert.match(await withTimeout(err, 3000, "channel error"), new RegExp(`406 \\(PRECONDITION-FAILED\\) with message "PRECONDITION_FAILED - ${text.replace(/[{}()]/g, "\\$&")}"`));
    }
  });
});
