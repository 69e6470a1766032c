import { afterAll, beforeAll, expect, test } from "@jest/globals";
import amqp from "amqplib";
import { startTestBroker } from "coney/testing";

let broker;
beforeAll(async () => {
  broker = await startTestBroker();
});
afterAll(() => broker.close());

test("a file may have a broker of its own", async () => {
  const conn = await amqp.connect(broker.amqpUrl);
  const ch = await conn.createChannel();
  await ch.assertExchange("audit", "fanout");
  await ch.assertQueue("audit-copy");
  await ch.bindQueue("audit-copy", "audit", "");
  ch.publish("audit", "", Buffer.from("logged in"));
  const [message] = await broker.waitForMessages("audit-copy", 1);
  expect(message.body.toString()).toBe("logged in");
  expect(message.exchange).toBe("audit");
  await conn.close();
});
