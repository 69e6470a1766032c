// RabbitMQ's reply codes and texts for the errors clients match on, over amqplib.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type Channel } from "amqplib";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";

/** amqplib rejects with an Error carrying the reply code; its message holds the reply text. */
function closedWith(code: number, text: string) {
  return (err: unknown): boolean => {
    const e = err as { code?: number; message?: string };
    assert.equal(e.code, code, `reply code of: ${e.message}`);
    assert.ok(e.message?.includes(text), `expected "${text}" in: ${e.message}`);
    return true;
  };
}

describe("AMQP errors", () => {
  const f = useBrokerWithConnection();

  const channel = async (): Promise<Channel> => {
    const ch = await f.conn.createChannel();
    ch.on("error", () => {});
    return ch;
  };


  it("404 NOT_FOUND for a passive declare of a missing queue", async () => {
    const ch = await channel();
    await assert.rejects(ch.checkQueue("nope"), closedWith(404, "NOT_FOUND - no queue 'nope' in vhost '/'"));
  });

  it("404 NOT_FOUND for a missing exchange", async () => {
    const ch = await channel();
    await assert.rejects(ch.checkExchange("nope-x"), closedWith(404, "NOT_FOUND - no exchange 'nope-x' in vhost '/'"));
  });

  it("406 PRECONDITION_FAILED for an inequivalent redeclare", async () => {
    const ch = await channel();
    await ch.assertQueue("eq-q", { durable: true });
    await assert.rejects(
      ch.assertQueue("eq-q", { durable: false }),
      closedWith(406, "PRECONDITION_FAILED - inequivalent arg 'durable' for queue 'eq-q' in vhost '/': received 'false' but current is 'true'"),
    );
    const ch2 = await channel();
    await ch2.assertExchange("eq-x", "direct");
    await assert.rejects(
      ch2.assertExchange("eq-x", "fanout"),
      closedWith(406, "inequivalent arg 'type' for exchange 'eq-x' in vhost '/': received 'fanout' but current is 'direct'"),
    );
    const ch3 = await channel();
    await ch3.deleteQueue("eq-q");
    await ch3.deleteExchange("eq-x");
  });

  it("403 ACCESS_REFUSED for reserved amq. names and the default exchange", async () => {
    const ch = await channel();
    await assert.rejects(ch.assertQueue("amq.mine"), closedWith(403, "ACCESS_REFUSED - queue name 'amq.mine' contains reserved prefix 'amq.*'"));
    const ch2 = await channel();
    await assert.rejects(ch2.assertExchange("amq.mine", "direct"), closedWith(403, "exchange name 'amq.mine' contains reserved prefix 'amq.*'"));
    const ch3 = await channel();
    const { queue } = await ch3.assertQueue("", { exclusive: true });
    await assert.rejects(ch3.bindQueue(queue, "", "k"), closedWith(403, "operation not permitted on the default exchange"));
  });

  it("405 RESOURCE_LOCKED for another connection's exclusive queue", async () => {
    const ch = await channel();
    const { queue } = await ch.assertQueue("", { exclusive: true });
    const other = await amqp.connect(f.broker.amqpUrl);
    const och = await other.createChannel();
    och.on("error", () => {});
    await assert.rejects(och.consume(queue, () => {}), closedWith(405, `RESOURCE_LOCKED - cannot obtain exclusive access to locked queue '${queue}' in vhost '/'`));
    await other.close();
  });

  it("406 for an unknown delivery tag closes only that channel", async () => {
    const ch = await channel();
    const closed = new Promise<unknown>((resolve) => ch.once("error", resolve));
    ch.ack({ fields: { deliveryTag: 99 } } as never);
    const err = await closed;
    closedWith(406, "PRECONDITION_FAILED - unknown delivery tag 99")(err);
    const still = await channel(); // the connection survives
    await still.checkExchange("amq.direct");
  });

  it("530 NOT_ALLOWED for a reused consumer tag closes the connection", async () => {
    const c = await amqp.connect(f.broker.amqpUrl);
    c.on("error", () => {});
    const ch = await c.createChannel();
    ch.on("error", () => {});
    const { queue } = await ch.assertQueue("", { exclusive: true });
    await ch.consume(queue, () => {}, { consumerTag: "dup" });
    const closed = new Promise<unknown>((resolve) => c.once("close", resolve));
    await assert.rejects(ch.consume(queue, () => {}, { consumerTag: "dup" }));
    const err = (await closed) as { code?: number; message?: string };
    assert.match(String(err?.message ?? err), /NOT_ALLOWED - attempt to reuse consumer tag 'dup'/);
  });

  it("403 ACCESS_REFUSED for an exclusive consume of a queue in use", async () => {
    const ch = await channel();
    const { queue } = await ch.assertQueue("", { exclusive: true });
    await ch.consume(queue, () => {});
    const ch2 = await channel();
    await assert.rejects(ch2.consume(queue, () => {}, { exclusive: true }), closedWith(403, `ACCESS_REFUSED - queue '${queue}' in vhost '/' in exclusive use`));
  });

  it("406 for if-unused and if-empty deletes", async () => {
    const ch = await channel();
    const { queue } = await ch.assertQueue("", { exclusive: true });
    ch.sendToQueue(queue, Buffer.from("x"));
    await ch.checkQueue(queue);
    await assert.rejects(ch.deleteQueue(queue, { ifEmpty: true }), closedWith(406, `PRECONDITION_FAILED - queue '${queue}' in vhost '/' not empty`));
    const ch2 = await channel();
    await ch2.assertExchange("in-use-x", "fanout", { autoDelete: false, durable: false });
    await ch2.bindQueue(queue, "in-use-x", "");
    await assert.rejects(ch2.deleteExchange("in-use-x", { ifUnused: true }), closedWith(406, "PRECONDITION_FAILED - exchange 'in-use-x' in vhost '/' in use"));
    const ch3 = await channel();
    await ch3.deleteExchange("in-use-x");
  });

  it("406 for invalid queue arguments, with RabbitMQ's text", async () => {
    const ch = await channel();
    await assert.rejects(
      ch.assertQueue("bad-ttl", { arguments: { "x-message-ttl": -1 } }),
      closedWith(406, "PRECONDITION_FAILED - invalid arg 'x-message-ttl' for queue 'bad-ttl' in vhost '/': {value_negative,-1}"),
    );
  });

  it("503 COMMAND_INVALID for an unknown exchange type closes the connection", async () => {
    const c = await amqp.connect(f.broker.amqpUrl);
    c.on("error", () => {});
    const ch = await c.createChannel();
    ch.on("error", () => {});
    const closed = new Promise<unknown>((resolve) => c.once("error", resolve));
    await assert.rejects(ch.assertExchange("weird", "no-such-type"));
    const err = (await closed) as { code?: number; message?: string };
    assert.equal(err.code, 503);
    assert.match(String(err.message), /COMMAND_INVALID - invalid exchange type 'no-such-type'/);
  });

  it("deletes of missing queues and exchanges are idempotent over AMQP", async () => {
    const ch = await channel();
    assert.deepEqual(await ch.deleteQueue("never-existed"), { messageCount: 0 });
    await ch.deleteExchange("never-existed-x");
  });
});
