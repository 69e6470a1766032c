// Length limits: x-max-length / x-max-length-bytes with x-overflow drop-head (dead-lettered,
// reason maxlen), reject-publish (publisher nack with confirms) and reject-publish-dlx.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ConfirmChannel } from "amqplib";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { deathsOf, nextMessage } from "../helpers/next-message.js";
import { withTimeout } from "../helpers/wait.js";

/** Publishes with confirms; resolves true for an ack, false for a nack. */
function confirmed(ch: ConfirmChannel, queue: string, body: string): Promise<boolean> {
  return withTimeout(new Promise((resolve) => ch.sendToQueue(queue, Buffer.from(body), {}, (err) => resolve(!err))), 3000, "a confirm");
}

describe("length limits", () => {
  const f = useBrokerWithConnection();

  it("drop-head keeps the newest max-length messages and dead-letters the oldest (maxlen)", async () => {
    const ch = await f.conn.createConfirmChannel();
    await ch.assertQueue("len.dead", { durable: false });
    await ch.assertQueue("len.q", { durable: false, arguments: { "x-max-length": 2, "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "len.dead" } });
    for (const body of ["1", "2", "3"]) assert.equal(await confirmed(ch, "len.q", body), true);
    assert.equal((await ch.checkQueue("len.q")).messageCount, 2);
    const dead = await nextMessage(ch, "len.dead");
    assert.equal(dead.content.toString(), "1");
    assert.equal(deathsOf(dead)[0]!["reason"], "maxlen");
    ch.ack(dead);
    const first = await ch.get("len.q", { noAck: true });
    assert.ok(first);
    assert.equal(first.content.toString(), "2");
    await ch.close();
  });

  it("x-max-length-bytes counts body bytes", async () => {
    const ch = await f.conn.createConfirmChannel();
    await ch.assertQueue("bytes.q", { durable: false, arguments: { "x-max-length-bytes": 10 } });
    for (const body of ["aaaa", "bbbb", "cccc"]) await confirmed(ch, "bytes.q", body);
    assert.equal((await ch.checkQueue("bytes.q")).messageCount, 2);
    const m = await ch.get("bytes.q", { noAck: true });
    assert.ok(m);
    assert.equal(m.content.toString(), "bbbb");
    await ch.close();
  });

  it("reject-publish nacks the publish that does not fit and keeps the queue as it was", async () => {
    const ch = await f.conn.createConfirmChannel();
    await ch.assertQueue("rp.q", { durable: false, arguments: { "x-max-length": 1, "x-overflow": "reject-publish" } });
    assert.equal(await confirmed(ch, "rp.q", "in"), true);
    assert.equal(await confirmed(ch, "rp.q", "out"), false, "nacked");
    assert.equal((await ch.checkQueue("rp.q")).messageCount, 1);
    const m = await ch.get("rp.q", { noAck: true });
    assert.ok(m);
    assert.equal(m.content.toString(), "in");
    assert.equal(await confirmed(ch, "rp.q", "fits again"), true);
    await ch.close();
  });

  it("reject-publish-dlx nacks and dead-letters the refused message", async () => {
    const ch = await f.conn.createConfirmChannel();
    await ch.assertQueue("rpd.dead", { durable: false });
    await ch.assertQueue("rpd.q", { durable: false, arguments: { "x-max-length": 0, "x-overflow": "reject-publish-dlx", "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "rpd.dead" } });
    assert.equal(await confirmed(ch, "rpd.q", "refused"), false);
    const dead = await nextMessage(ch, "rpd.dead");
    assert.equal(dead.content.toString(), "refused");
    assert.equal(deathsOf(dead)[0]!["reason"], "maxlen");
    ch.ack(dead);
    await ch.close();
  });
});
