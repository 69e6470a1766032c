// The same broker used unchanged by the other popular Node clients: @cloudamqp/amqp-client
// (its low-level and high-level APIs) and rabbitmq-client (publisher with confirms, consumer,
// RPC over direct reply-to).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { AMQPClient, AMQPSession } from "@cloudamqp/amqp-client";
import { Connection } from "rabbitmq-client";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { collector, withTimeout } from "../helpers/wait.js";

describe("other clients", () => {
  let broker: TestBroker;

  before(async () => {
    broker = await startTestBroker();
  });
  after(async () => {
    await broker.close();
  });

  it("@cloudamqp/amqp-client: declare, confirm-publish, consume, ack", async () => {
    const client = new AMQPClient(broker.amqpUrl);
    const conn = await client.connect();
    const ch = await conn.channel();
    await ch.confirmSelect();
    await ch.queueDeclare("cloudamqp-q", { durable: false, autoDelete: false, exclusive: true });
    for (let i = 0; i < 100; i++) await ch.basicPublish("", "cloudamqp-q", `m${i}`, { deliveryMode: 1, headers: { i } });
    const got = collector<string>(100);
    await ch.basicConsume("cloudamqp-q", { noAck: false }, async (msg) => {
      got.push(msg.bodyToString() ?? "");
      await msg.ack();
    });
    const bodies = await withTimeout(got.done, 5000, "100 deliveries");
    assert.equal(bodies[0], "m0");
    assert.equal(bodies[99], "m99");
    const ok = await ch.queueDeclare("cloudamqp-q", { passive: true });
    assert.equal(ok.messageCount, 0);
    await conn.close();
  });

  it("@cloudamqp/amqp-client: the high-level session API", async () => {
    const session = await AMQPSession.connect(broker.amqpUrl);
    const q = await session.queue("session-q");
    await q.publish("hello session", { deliveryMode: 2 });
    const got = collector<string>(1);
    const sub = await q.subscribe(async (msg) => {
      got.push(msg.bodyString() ?? "");
    });
    assert.deepEqual(await withTimeout(got.done, 5000, "delivery"), ["hello session"]);
    await sub.cancel();
    await session.stop();
  });

  it("rabbitmq-client: publisher with confirms, consumer, and RPC", async () => {
    const rabbit = new Connection({ url: broker.amqpUrl, retryLow: 50, retryHigh: 200 });
    rabbit.on("error", () => {});
    const got = collector<unknown>(3);
    const sub = rabbit.createConsumer(
      { queue: "rc-events", queueOptions: { durable: true }, qos: { prefetchCount: 2 }, exchanges: [{ exchange: "rc-x", type: "topic" }], queueBindings: [{ exchange: "rc-x", routingKey: "users.*" }] },
      async (msg) => {
        got.push(msg.body);
      },
    );
    const pub = rabbit.createPublisher({ confirm: true, exchanges: [{ exchange: "rc-x", type: "topic" }] });
    await new Promise<void>((resolve) => sub.once("ready", () => resolve()));
    for (let i = 0; i < 3; i++) await pub.send({ exchange: "rc-x", routingKey: "users.visit" }, { id: i });
    assert.deepEqual(await withTimeout(got.done, 5000, "3 deliveries"), [{ id: 0 }, { id: 1 }, { id: 2 }]);

    const server = rabbit.createConsumer({ queue: "rc-rpc", queueOptions: { exclusive: true } }, async (req, reply) => {
      await reply(`echo:${String(req.body)}`);
    });
    await new Promise<void>((resolve) => server.once("ready", () => resolve()));
    const rpc = rabbit.createRPCClient({ confirm: true });
    const res = await withTimeout(rpc.send("rc-rpc", "ping"), 5000, "RPC reply");
    assert.equal(res.body, "echo:ping");

    await rpc.close();
    await pub.close();
    await server.close();
    await sub.close();
    await rabbit.close();
  });
});

describe("connection.update-secret after a password login", () => {
  let broker: TestBroker;
  before(async () => {
    broker = await startTestBroker();
  });
  after(async () => broker.close());

  // RabbitMQ 3.10 answers update-secret-ok to an internal user and changes nothing: only token
  // logins are re-checked (issue 17). The clients' own update-secret calls must succeed.
  it("amqplib: updateSecret resolves, the connection keeps working", async () => {
    const amqplib = (await import("amqplib")).default;
    const conn = await amqplib.connect(broker.amqpUrl);
    let failed: Error | null = null;
    conn.on("error", (e: Error) => (failed = e));
    await withTimeout(conn.updateSecret(Buffer.from("not-even-the-password"), "rotation"), 5000, "update-secret-ok");
    const ch = await conn.createChannel();
    await ch.assertQueue("", { exclusive: true });
    assert.equal(failed, null);
    await conn.close();
  });

  it("@cloudamqp/amqp-client: updateSecret resolves, the connection keeps working", async () => {
    const conn = await new AMQPClient(broker.amqpUrl).connect();
    await withTimeout(conn.updateSecret("guest", "rotation"), 5000, "update-secret-ok");
    const ch = await conn.channel();
    await ch.queueDeclare("", { exclusive: true });
    await conn.close();
  });
});
