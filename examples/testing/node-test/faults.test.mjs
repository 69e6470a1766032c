// node:test: provoking the faults a client must survive — a closed connection and a blocked publisher.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import amqp from "amqplib";
import { startTestBroker } from "coney/testing";

let broker;
before(async () => {
  broker = await startTestBroker();
});
after(() => broker.close());

test("the client sees the broker close its connection", async () => {
  const conn = await amqp.connect(broker.amqpUrl);
  conn.on("error", () => {}); // amqplib reports a forced close as an error first
  const closed = once(conn, "close");
  assert.equal(broker.closeConnections("maintenance"), 1);
  const [err] = await closed;
  assert.match(String(err), /CONNECTION_FORCED/);
});

test("a publisher is blocked while the broker is short of memory, and goes on after", async () => {
  const conn = await amqp.connect(broker.amqpUrl);
  const ch = await conn.createChannel();
  await ch.assertQueue("uploads");
  broker.blockPublishers();
  // As RabbitMQ, a connection is blocked when it publishes while an alarm is on.
  const blocked = once(conn, "blocked");
  ch.sendToQueue("uploads", Buffer.from("held back"));
  const [reason] = await blocked;
  assert.match(reason, /memory/);
  const unblocked = once(conn, "unblocked");
  broker.unblockPublishers();
  await unblocked;
  const [message] = await broker.waitForMessages("uploads", 1);
  assert.equal(message.body.toString(), "held back");
  await conn.close();
});
