// Deaths counted as RabbitMQ's rabbitmq_global_messages_dead_lettered_*: by reason, queue type,
// and strategy (at_most_once with a dead-letter exchange, disabled when the message is dropped).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { eventually } from "../helpers/wait.js";
import { startMetricsBroker, valueOf, type MetricsBroker } from "./metrics-fixture.js";

describe("dead-letter counters", () => {
  let b: MetricsBroker;
  before(async () => {
    b = await startMetricsBroker();
  });
  after(() => b.close());

  it("count rejected, expired and max-length deaths, dead-lettered or dropped", async () => {
    const conn = await amqp.connect(b.amqpUrl);
    try {
      const ch = await conn.createChannel();
      await ch.assertQueue("dl.target", { durable: false });
      const dlx = { "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "dl.target" };
      await ch.assertQueue("dl.rej", { durable: false, arguments: dlx });
      await ch.assertQueue("dl.drop", { durable: false });
      await ch.assertQueue("dl.max", { durable: false, arguments: { "x-max-length": 1 } });
      await ch.assertQueue("dl.ttl", { durable: false, arguments: { ...dlx, "x-message-ttl": 1 } });
      for (const q of ["dl.rej", "dl.rej", "dl.drop", "dl.max", "dl.max", "dl.max", "dl.ttl", "dl.ttl", "dl.ttl"]) ch.sendToQueue(q, Buffer.from("x"));
      for (const q of ["dl.rej", "dl.rej", "dl.drop"]) {
        let m: amqp.GetMessage | false = false;
        await eventually(async () => (m = await ch.get(q)) !== false, 5000, `a message on ${q}`);
        ch.nack(m as unknown as amqp.Message, false, false);
      }
      const series = (reason: string, type: string, strategy: string) => ({ name: `rabbitmq_global_messages_dead_lettered_${reason}_total`, labels: { queue_type: `rabbit_${type}_queue`, dead_letter_strategy: strategy } });
      const expected: Array<[ReturnType<typeof series>, number]> = [
        [series("rejected", "classic", "at_most_once"), 2],
        [series("rejected", "classic", "disabled"), 1],
        [series("maxlen", "classic", "disabled"), 2],
        [series("expired", "classic", "at_most_once"), 3],
        [series("maxlen", "classic", "at_most_once"), 0],
        [series("delivery_limit", "quorum", "disabled"), 0],
      ];
      await eventually(async () => {
        const now = await b.scrape();
        return expected.every(([s, v]) => valueOf(now, s.name, s.labels) === v);
      }, 5000, `dead-letter counters ${JSON.stringify(expected)}`);
      // Dead-lettered ones arrived: 2 rejected + 3 expired.
      const perObject = await b.scrape("/metrics/per-object");
      assert.equal(valueOf(perObject, "rabbitmq_queue_messages_ready", { queue: "dl.target" }), 5);
    } finally {
      await conn.close();
    }
  });
});
