import { afterAll, beforeAll, expect, test } from "@jest/globals";
import { Connection } from "rabbitmq-client";
import { createTestVhost } from "coney/testing";

let vhost;
beforeAll(async () => {
  vhost = await createTestVhost(JSON.parse(process.env.CONEY_TEST_BROKER));
});
afterAll(() => vhost.delete());

test("rabbitmq-client publishes and consumes through the shared broker", async () => {
  const rabbit = new Connection(vhost.amqpUrl);
  // Declared before publishing: a message routed to a queue that does not exist yet is dropped.
  await rabbit.queueDeclare({ queue: "events", durable: true });
  let deliver;
  const received = new Promise((resolve) => (deliver = resolve));
  const sub = rabbit.createConsumer({ queue: "events", queueOptions: { durable: true } }, (msg) => deliver(msg.body));
  const pub = rabbit.createPublisher({ confirm: true });
  await pub.send("events", { kind: "signed-up" });
  expect(await received).toEqual({ kind: "signed-up" });
  await sub.close();
  await pub.close();
  await rabbit.close();
});
