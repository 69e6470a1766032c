import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker } from "coney/testing";

describe("with a broker of this file's own", () => {
  let own;
  before(async () => {
    own = await startTestBroker({ user: { username: "app", password: "s3cret" } });
  });
  after(() => own.close());

  it("refuses a wrong password, as RabbitMQ does", async () => {
    await assert.rejects(amqp.connect(own.urlFor({ password: "wrong" })), /ACCESS_REFUSED|403/);
  });

  it("accepts its own user", async () => {
    const conn = await amqp.connect(own.amqpUrl);
    await conn.close();
  });
});
