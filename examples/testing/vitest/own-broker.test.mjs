// A broker of this file's own: started in milliseconds, so a file may simply have its own.
import { afterAll, beforeAll, beforeEach, expect, test } from "vitest";
import { AMQPClient } from "@cloudamqp/amqp-client";
import { startTestBroker } from "coney/testing";

let broker;
beforeAll(async () => {
  broker = await startTestBroker({ user: "random" });
});
afterAll(() => broker.close());
beforeEach(() => broker.reset());

test("the queue holds what was published, without consuming it", async () => {
  const conn = await new AMQPClient(broker.amqpUrl).connect();
  const ch = await conn.channel();
  await ch.queueDeclare("jobs");
  await ch.basicPublish("", "jobs", "one");
  await ch.basicPublish("", "jobs", "two");
  await broker.waitForMessages("jobs", 2);
  expect(broker.queue("jobs").messages().map((m) => m.body.toString())).toEqual(["one", "two"]);
  expect(broker.queue("jobs").messageCount).toBe(2);
  await conn.close();
});

test("reset removed the queue of the previous test", () => {
  expect(broker.queue("jobs").exists).toBe(false);
});
