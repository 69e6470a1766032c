// Uses the broker of the global setup, in a vhost no other file sees.
import { afterAll, beforeAll, expect, inject, test } from "vitest";
import { AMQPClient } from "@cloudamqp/amqp-client";
import { createTestVhost } from "coney/testing";

let vhost;
beforeAll(async () => {
  vhost = await createTestVhost(inject("coney"));
});
afterAll(() => vhost.delete());

test("a message goes round through the shared broker", async () => {
  const client = new AMQPClient(vhost.amqpUrl);
  const conn = await client.connect();
  const ch = await conn.channel();
  await ch.queueDeclare("greetings");
  await ch.basicPublish("", "greetings", "hello");
  const msg = await ch.basicGet("greetings", { noAck: true });
  expect(msg?.bodyToString()).toBe("hello");
  await conn.close();
});
