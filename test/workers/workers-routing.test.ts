// `coney --workers 2`: routing decisions that involve two workers keep RabbitMQ's semantics
// (issue 42: "dead-lettering to a queue on another node, TTL, alternate exchanges, mandatory
// returns"). A message that dies on its queue's worker (TTL, reject, length limit) is republished
// there and reaches a dead-letter queue led by the other worker with its x-death; an unroutable
// publish goes to an alternate exchange whose queue the other worker leads; a mandatory publish
// nobody can take comes back with NO_ROUTE. Real process tree, amqplib.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel, type ConfirmChannel, type ConsumeMessage, type Message } from "amqplib";
import { withTimeout } from "../helpers/wait.js";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";
import { queueGroupOf } from "../../src/broker/index.js";

/** A queue name with `prefix` that worker `worker` of 2 leads. */
function ledBy(worker: number, prefix: string): string {
  for (let i = 0; ; i++) if (queueGroupOf("/", `${prefix}-${i}`, 2) === worker) return `${prefix}-${i}`;
}

function nextMessage(ch: ConfirmChannel, queue: string): Promise<ConsumeMessage> {
  return withTimeout(
    new Promise<ConsumeMessage>((resolve) => {
      void ch.consume(queue, (m) => m && resolve(m), { noAck: true });
    }),
    15_000,
    `a message on ${queue}`,
  );
}

const confirmed = (ch: ConfirmChannel, exchange: string, key: string, body: string, opts: amqp.Options.Publish = {}): Promise<void> =>
  withTimeout(new Promise<void>((resolve, reject) => ch.publish(exchange, key, Buffer.from(body), opts, (err) => (err ? reject(err) : resolve()))), 15_000, `the confirm of ${body}`);

describe("coney --workers 2: dead-lettering, alternate exchanges and returns across workers", () => {
  let p: WorkersProcess;
  const open: ChannelModel[] = [];

  async function channel(): Promise<ConfirmChannel> {
    const c = await amqp.connect(p.amqpUrl);
    c.on("error", () => {});
    open.push(c);
    return c.createConfirmChannel();
  }

  before(async () => {
    p = await startWorkers();
  });
  after(async () => {
    for (const c of open) await c.close().catch(() => {});
    await p?.close();
  });

  it("a message expired (TTL) on one worker's queue reaches the dead-letter queue the other worker leads, with its x-death", async () => {
    const ch = await channel();
    for (const [from, to] of [[0, 1], [1, 0]] as const) {
      const source = ledBy(from, `ttl-src-w${from}`);
      const dlq = ledBy(to, `ttl-dlq-w${to}`);
      await ch.assertQueue(dlq, { durable: true });
      await ch.assertQueue(source, { durable: true, arguments: { "x-message-ttl": 50, "x-dead-letter-exchange": "", "x-dead-letter-routing-key": dlq } });
      const got = nextMessage(ch, dlq);
      await confirmed(ch, "", source, `expired from w${from}`, { persistent: true });
      const m: Message = await got;
      assert.equal(m.content.toString(), `expired from w${from}`);
      const death = (m.properties.headers?.["x-death"] as unknown as Array<Record<string, unknown>>)[0]!;
      assert.equal(death["queue"], source);
      assert.equal(death["reason"], "expired");
    }
  });

  it("a message rejected without requeue on a queue the other worker leads is dead-lettered through an exchange to a queue of the first", async () => {
    const ch = await channel();
    const source = ledBy(1, "rej-src");
    const dlq = ledBy(0, "rej-dlq");
    await ch.assertExchange("dlx-across", "fanout", { durable: false });
    await ch.assertQueue(dlq, { durable: false });
    await ch.bindQueue(dlq, "dlx-across", "");
    await ch.assertQueue(source, { durable: false, arguments: { "x-dead-letter-exchange": "dlx-across" } });
    await confirmed(ch, "", source, "rejected");
    const consumer = await channel();
    await consumer.prefetch(1);
    const delivered = withTimeout(
      new Promise<ConsumeMessage>((resolve) => {
        void consumer.consume(source, (m) => m && resolve(m));
      }),
      15_000,
      "the delivery to reject",
    );
    consumer.reject(await delivered, false);
    const m = await nextMessage(ch, dlq);
    assert.equal(m.content.toString(), "rejected");
    assert.equal((m.properties.headers?.["x-death"] as unknown as Array<Record<string, unknown>>)[0]!["reason"], "rejected");
  });

  it("an unroutable publish goes to the alternate exchange, whose queue the other worker leads; a mandatory publish nobody takes is returned NO_ROUTE", async () => {
    const ch = await channel();
    for (const worker of [0, 1]) {
      const ae = `ae-${worker}`;
      const q = ledBy(worker, `ae-q-w${worker}`);
      await ch.assertExchange(ae, "fanout", { durable: false });
      await ch.assertQueue(q, { durable: false });
      await ch.bindQueue(q, ae, "");
      await ch.assertExchange(`main-${worker}`, "direct", { durable: false, alternateExchange: ae });
      const got = nextMessage(ch, q);
      await confirmed(ch, `main-${worker}`, "no-binding", `to the alternate of w${worker}`);
      assert.equal((await got).content.toString(), `to the alternate of w${worker}`);
    }
    await ch.assertExchange("nowhere", "direct", { durable: false });
    const returned = withTimeout(
      new Promise<Message>((resolve) => ch.once("return", resolve)),
      15_000,
      "the basic.return",
    );
    await confirmed(ch, "nowhere", "no-binding", "returned", { mandatory: true });
    const r = (await returned).fields as unknown as { replyCode: number; replyText: string };
    assert.equal(r.replyCode, 312);
    assert.equal(r.replyText, "NO_ROUTE");
  });

  it("a queue at its length limit on the other worker drops its head to a dead-letter queue (overflow drop-head)", async () => {
    const ch = await channel();
    const source = ledBy(1, "len-src");
    const dlq = ledBy(0, "len-dlq");
    await ch.assertQueue(dlq, { durable: false });
    await ch.assertQueue(source, { durable: false, arguments: { "x-max-length": 1, "x-dead-letter-exchange": "", "x-dead-letter-routing-key": dlq } });
    await confirmed(ch, "", source, "first");
    const got = nextMessage(ch, dlq);
    await confirmed(ch, "", source, "second");
    const m = await got;
    assert.equal(m.content.toString(), "first");
    assert.equal((m.properties.headers?.["x-death"] as unknown as Array<Record<string, unknown>>)[0]!["reason"], "maxlen");
  });
});
