// Live message rates on records: after publishing over AMQP, the queue, exchange, vhost,
// channel and overview records show the counts at once and non-zero `_details.rate`s.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";

describe("message rates over HTTP", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);
  before(async () => {
    broker = await startTestBroker();
  });
  after(async () => broker.close());

  it("shows counters without lag and their rates on every record kind", async () => {
    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createConfirmChannel();
    await ch.assertExchange("rated", "fanout");
    await ch.assertQueue("rated-q");
    await ch.bindQueue("rated-q", "rated", "");
    for (let i = 0; i < 40; i++) ch.publish("rated", "", Buffer.from("x"));
    await ch.waitForConfirms();
    // The broker has received all 40 once the confirms are in; the records must say so at once.
    await eventually(async () => (await api("GET", "/api/queues/%2f/rated-q")).json.messages === 40, 2000, "40 messages counted");

    const q = (await api("GET", "/api/queues/%2f/rated-q")).json;
    assert.equal(q.message_stats.publish, 40);
    assert.ok(q.message_stats.publish_details.rate > 0, "queue publish rate");
    assert.ok(q.messages_details.rate > 0, "queue depth grows");
    assert.equal(typeof q.messages_ready_details.rate, "number");
    const x = (await api("GET", "/api/exchanges/%2f/rated")).json;
    assert.equal(x.message_stats.publish_in, 40);
    assert.ok(x.message_stats.publish_in_details.rate > 0, "exchange publish_in rate");
    const o = (await api("GET", "/api/overview")).json;
    assert.ok(o.message_stats.publish >= 40);
    assert.ok(o.message_stats.publish_details.rate > 0, "overview publish rate");
    assert.ok(o.queue_totals.messages_details.rate > 0, "overview queue totals rate");
    assert.equal(typeof o.churn_rates.queue_created_details.rate, "number");
    const v = (await api("GET", "/api/vhosts/%2f")).json;
    assert.ok(v.message_stats.publish_details.rate > 0, "vhost publish rate");
    assert.equal(typeof v.recv_oct_details.rate, "number");
    const channels = (await api("GET", "/api/channels")).json;
    assert.ok(channels[0].message_stats.publish_details.rate > 0, "channel publish rate");
    assert.ok(channels[0].message_stats.confirm >= 40);
    const conns = (await api("GET", "/api/connections")).json;
    assert.ok(conns[0].recv_oct > 0 && conns[0].recv_oct_details.rate > 0, "connection octet rate");
    // Sorting by a rate's dotted path works like any other column.
    assert.equal((await api("GET", "/api/queues?sort=message_stats.publish_details.rate&sort_reverse=true")).json[0].name, "rated-q");
    await conn.close();
  });

  it("counts basic.get on an empty queue as get_empty on the queue, channel, vhost and overview", async () => {
    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createChannel();
    await ch.assertQueue("empty-q");
    const before = (await api("GET", "/api/overview")).json.message_stats?.get_empty ?? 0;
    for (let i = 0; i < 3; i++) assert.equal(await ch.get("empty-q"), false);
    const q = (await api("GET", "/api/queues/%2f/empty-q")).json;
    assert.equal(q.message_stats.get_empty, 3, "a queue with only empty gets shows its message_stats");
    assert.equal(typeof q.message_stats.get_empty_details.rate, "number");
    assert.equal((await api("GET", "/api/overview")).json.message_stats.get_empty, before + 3);
    assert.ok((await api("GET", "/api/vhosts/%2f")).json.message_stats.get_empty >= 3);
    const channels = (await api("GET", "/api/channels")).json as Array<{ message_stats: { get_empty: number } }>;
    assert.ok(channels.some((c) => c.message_stats.get_empty === 3), JSON.stringify(channels.map((c) => c.message_stats)));
    await conn.close();
  });
});
