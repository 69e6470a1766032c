// Values: drive known traffic over AMQP and check that every counter and gauge it touches moved
// by exactly that much, in the aggregated and the per-object output.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { eventually } from "../helpers/wait.js";
import type { ParsedFamily } from "./exposition-parser.js";
import { startMetricsBroker, valueOf, type MetricsBroker } from "./metrics-fixture.js";

const AMQP = { protocol: "amqp091" };

describe("metric values follow the traffic exactly", () => {
  let b: MetricsBroker;
  let conn: amqp.ChannelModel;
  let before0: ParsedFamily[];

  before(async () => {
    b = await startMetricsBroker();
    before0 = await b.scrape();
  });
  after(async () => {
    await conn?.close().catch(() => undefined);
    await b.close();
  });

  /** How much a global (protocol-labelled) or unlabelled counter moved since the first scrape. */
  const moved = (now: ParsedFamily[], name: string, labels: Record<string, string> = {}): number => valueOf(now, name, labels) - valueOf(before0, name, labels);

  it("publish, confirm, return, drop, get, get-empty, consume with and without ack, redeliver", async () => {
    await assert.rejects(amqp.connect(b.urlFor("guest", "wrong-password")));
    conn = await amqp.connect(b.amqpUrl);
    const pub = await conn.createConfirmChannel();
    await pub.assertQueue("v.q", { durable: false });
    await pub.assertQueue("v.auto", { durable: false });
    let returned = 0;
    pub.on("return", () => returned++);
    for (let i = 0; i < 5; i++) pub.publish("", "v.q", Buffer.alloc(10));
    for (let i = 0; i < 2; i++) pub.publish("", "v.auto", Buffer.alloc(5000));
    for (let i = 0; i < 2; i++) pub.publish("amq.direct", "nowhere", Buffer.alloc(10), { mandatory: true });
    for (let i = 0; i < 3; i++) pub.publish("amq.direct", "nowhere", Buffer.alloc(200_000));
    await pub.waitForConfirms();
    await eventually(() => returned === 2, 5000, "2 basic.return");

    // Gauges while the messages wait: v.q holds 5, v.auto 2.
    let perObject = await b.scrape("/metrics/per-object");
    assert.equal(valueOf(perObject, "rabbitmq_queue_messages_ready", { queue: "v.q" }), 5);
    assert.equal(valueOf(perObject, "rabbitmq_queue_messages_ready", { queue: "v.auto" }), 2);
    assert.equal(valueOf(perObject, "rabbitmq_queue_messages_bytes", { queue: "v.auto" }), 10_000);
    assert.equal(valueOf(await b.scrape(), "rabbitmq_queue_messages_ready"), 7);

    const getter = await conn.createChannel();
    const got = await getter.get("v.q", { noAck: false });
    assert.ok(got);
    perObject = await b.scrape("/metrics/per-object");
    assert.equal(valueOf(perObject, "rabbitmq_queue_messages_ready", { queue: "v.q" }), 4);
    assert.equal(valueOf(perObject, "rabbitmq_queue_messages_unacked", { queue: "v.q" }), 1);
    assert.equal(valueOf(perObject, "rabbitmq_queue_messages", { queue: "v.q" }), 5);
    getter.ack(got);
    assert.ok(await getter.get("v.q", { noAck: true }));

    // A manual-ack consumer takes the other 3, nacking the first once so it comes back redelivered.
    const consumer = await conn.createChannel();
    let acked = 0;
    let nacked = false;
    await consumer.consume("v.q", (m) => {
      if (!m) return;
      if (!nacked) {
        nacked = true;
        consumer.nack(m, false, true);
      } else {
        consumer.ack(m);
        acked++;
      }
    });
    let autoAcked = 0;
    await consumer.consume("v.auto", () => autoAcked++, { noAck: true });
    await eventually(() => acked === 3 && autoAcked === 2, 5000, "3 acks and 2 no-ack deliveries");
    assert.equal(await getter.get("v.q"), false);
    assert.equal(await getter.get("v.auto"), false);

    // The broker has processed the client's acks once its counter says so; then everything is exact.
    let now: ParsedFamily[] = [];
    await eventually(async () => {
      now = await b.scrape();
      return moved(now, "rabbitmq_global_messages_acknowledged_total", AMQP) === 4;
    }, 5000, "4 acknowledgements counted");

    const expected: Array<[string, number]> = [
      ["rabbitmq_global_messages_received_total", 12],
      ["rabbitmq_global_messages_received_confirm_total", 12],
      ["rabbitmq_global_messages_confirmed_total", 12],
      ["rabbitmq_global_messages_routed_total", 7],
      ["rabbitmq_global_messages_unroutable_returned_total", 2],
      ["rabbitmq_global_messages_unroutable_dropped_total", 3],
      ["rabbitmq_global_messages_delivered_consume_manual_ack_total", 4],
      ["rabbitmq_global_messages_delivered_consume_auto_ack_total", 2],
      ["rabbitmq_global_messages_delivered_get_manual_ack_total", 1],
      ["rabbitmq_global_messages_delivered_get_auto_ack_total", 1],
      ["rabbitmq_global_messages_delivered_total", 8],
      ["rabbitmq_global_messages_redelivered_total", 1],
      ["rabbitmq_global_messages_acknowledged_total", 4],
      ["rabbitmq_global_messages_get_empty_total", 2],
    ];
    for (const [name, delta] of expected) assert.equal(moved(now, name, AMQP), delta, name);

    const unlabelled: Array<[string, number]> = [
      ["rabbitmq_channel_messages_published_total", 12],
      ["rabbitmq_channel_messages_confirmed_total", 12],
      ["rabbitmq_channel_messages_unroutable_returned_total", 2],
      ["rabbitmq_channel_messages_unroutable_dropped_total", 3],
      ["rabbitmq_channel_messages_delivered_ack_total", 4],
      ["rabbitmq_channel_messages_delivered_total", 2],
      ["rabbitmq_channel_get_ack_total", 1],
      ["rabbitmq_channel_get_total", 1],
      ["rabbitmq_channel_get_empty_total", 2],
      ["rabbitmq_channel_messages_redelivered_total", 1],
      ["rabbitmq_channel_messages_acked_total", 4],
      ["rabbitmq_connections_opened_total", 1],
      ["rabbitmq_channels_opened_total", 3],
      ["rabbitmq_queues_declared_total", 2],
      ["rabbitmq_queues_created_total", 2],
      ["rabbitmq_queues_deleted_total", 0],
    ];
    for (const [name, delta] of unlabelled) assert.equal(moved(now, name), delta, name);
    assert.equal(moved(now, "rabbitmq_auth_attempts_total", AMQP), 2);
    assert.equal(moved(now, "rabbitmq_auth_attempts_succeeded_total", AMQP), 1);
    assert.equal(moved(now, "rabbitmq_auth_attempts_failed_total", AMQP), 1);

    // Gauges now: nothing waits, one connection with three channels, two consumers, one publisher.
    for (const [name, value] of [
      ["rabbitmq_queue_messages_ready", 0],
      ["rabbitmq_queue_messages_unacked", 0],
      ["rabbitmq_queue_messages", 0],
      ["rabbitmq_connections", 1],
      ["rabbitmq_channels", 3],
      ["rabbitmq_consumers", 2],
      ["rabbitmq_queue_consumers", 2],
      ["rabbitmq_queues", 2],
    ] as const) {
      assert.equal(valueOf(now, name), value, name);
    }
    assert.equal(valueOf(now, "rabbitmq_global_consumers", AMQP), 2);
    assert.equal(valueOf(now, "rabbitmq_global_publishers", AMQP), 1);

    // Message sizes: 7 of ≤100 B, 2 of 5,000 B, 3 of 200,000 B.
    const bucket = (le: string): number => moved(now, "rabbitmq_message_size_bytes_bucket", { ...AMQP, le });
    assert.deepEqual(["100.0", "1000.0", "10000.0", "100000.0", "1e+06", "1e+07", "5e+07", "1e+08", "+Inf"].map(bucket), [7, 7, 9, 9, 12, 12, 12, 12, 12]);
    assert.equal(moved(now, "rabbitmq_message_size_bytes_count", AMQP), 12);
    assert.equal(moved(now, "rabbitmq_message_size_bytes_sum", AMQP), 7 * 10 + 2 * 5000 + 3 * 200_000);

    // Per channel: the publishing channel's counters, labelled with its name.
    perObject = await b.scrape("/metrics/per-object");
    const published = perObject.find((f) => f.name === "rabbitmq_channel_messages_published_total")!.samples.filter((s) => s.value > 0);
    assert.equal(published.length, 1);
    const channel = published[0]!.labels["channel"]!;
    assert.match(channel, /\(1\)$/);
    assert.equal(valueOf(perObject, "rabbitmq_channel_messages_unroutable_dropped_total", { channel }), 3);
    assert.equal(valueOf(perObject, "rabbitmq_channel_messages_unroutable_returned_total", { channel }), 2);
    assert.equal(valueOf(perObject, "rabbitmq_channel_messages_confirmed_total", { channel }), 12);

    // Deleting a queue and closing the connection: churn counters move, gauges drop.
    await getter.deleteQueue("v.auto");
    await conn.close();
    await eventually(async () => {
      now = await b.scrape();
      return valueOf(now, "rabbitmq_connections") === 0;
    }, 5000, "the connection to close");
    assert.equal(moved(now, "rabbitmq_queues_deleted_total"), 1);
    assert.equal(moved(now, "rabbitmq_connections_closed_total"), 1);
    assert.equal(moved(now, "rabbitmq_channels_closed_total"), 3);
    assert.equal(valueOf(now, "rabbitmq_channels"), 0);
    assert.equal(valueOf(now, "rabbitmq_queues"), 1);
    assert.equal(valueOf(now, "rabbitmq_global_publishers", AMQP), 0);
    // Counters never go down: the deleted queue's and the closed channels' deliveries stay counted.
    assert.equal(moved(now, "rabbitmq_global_messages_delivered_total", AMQP), 8);
  });
});
