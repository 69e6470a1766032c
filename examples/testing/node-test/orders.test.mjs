// node:test, one test broker for this file, emptied before each test.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker } from "coney/testing";

let broker;
before(async () => {
  broker = await startTestBroker();
});
after(() => broker.close());
beforeEach(() => broker.reset());

// The code under test: publishes an order, persistent and confirmed.
async function placeOrder(url, order) {
  const conn = await amqp.connect(url);
  const ch = await conn.createConfirmChannel();
  await ch.assertQueue("orders", { durable: true });
  ch.sendToQueue("orders", Buffer.from(JSON.stringify(order)), { persistent: true, contentType: "application/json" });
  await ch.waitForConfirms();
  await conn.close();
}

test("an order lands in the orders queue", async () => {
  await placeOrder(broker.amqpUrl, { id: 1, sku: "apple" });
  const [message] = await broker.waitForMessages("orders", 1);
  assert.deepEqual(JSON.parse(message.body.toString()), { id: 1, sku: "apple" });
  assert.equal(message.properties.contentType, "application/json");
  assert.equal(message.properties.deliveryMode, 2);
});

test("each test starts from an empty broker", () => {
  assert.equal(broker.queue("orders").exists, false);
});
