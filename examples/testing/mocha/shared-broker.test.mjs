import assert from "node:assert/strict";
import amqp from "amqplib";
import { broker } from "./root-hooks.mjs";

describe("with the run's broker", () => {
  it("declares and fills a queue", async () => {
    const conn = await amqp.connect(broker.current.amqpUrl);
    const ch = await conn.createChannel();
    await ch.assertQueue("mail");
    ch.sendToQueue("mail", Buffer.from("welcome"));
    const [message] = await broker.current.waitForMessages("mail", 1);
    assert.equal(message.body.toString(), "welcome");
    await conn.close();
  });

  it("starts every test from an empty broker", () => {
    assert.equal(broker.current.queue("mail").exists, false);
  });
});
