// Chart history kept by the broker (issue 28): a request with RabbitMQ's chart parameters gets
// the object's past at once — here a queue's length after two rounds of publishes, and the
// overview's publish counter — not only the live value. Real broker, real 5 s sampler, amqplib.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { readRabbitConf, RabbitConfError } from "../../src/config/rabbitmq-conf.js";

interface Details {
  rate: number;
  samples: Array<{ sample: number; timestamp: number }>;
  avg: number;
  avg_rate: number;
}

describe("chart history", { timeout: 60_000 }, () => {
  let broker: TestBroker;
  let conn: ChannelModel;
  const api = apiClient(() => broker.httpUrl);
  before(async () => {
    broker = await startTestBroker();
    conn = await amqp.connect(broker.amqpUrl);
  });
  after(async () => {
    await conn.close();
    await broker.close();
  });

  const lengths = async (): Promise<Details> => {
    const r = await api("GET", "/api/queues/%2F/history-q?lengths_age=60&lengths_incr=5&msg_rates_age=60&msg_rates_incr=5");
    assert.equal(r.status, 200);
    return r.json.messages_details as Details;
  };

  it("serves a queue's past lengths on the first request for them", async () => {
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("history-q");
    for (let i = 0; i < 5; i++) ch.sendToQueue("history-q", Buffer.from("a"));
    await ch.waitForConfirms();
    // The sampler takes a point every 5 s: wait until one holds the 5 messages.
    await eventually(async () => (await lengths()).samples.slice(1).some((p) => p.sample === 5), 15_000, "a sample of 5 messages");
    for (let i = 0; i < 5; i++) ch.sendToQueue("history-q", Buffer.from("b"));
    await ch.waitForConfirms();
    await eventually(async () => (await lengths()).samples.slice(1).some((p) => p.sample === 10), 15_000, "a sample of 10 messages");
    const d = await lengths();
    assert.equal(d.samples[0]!.sample, 10, "the live value first");
    const past = d.samples.slice(1);
    assert.ok(past.every((p) => p.timestamp % 5000 === 0), "points on 5 s boundaries");
    assert.ok(past.every((p, i) => i === 0 || p.timestamp === past[i - 1]!.timestamp - 5000), "one point every 5 s, newest first");
    assert.ok(past.some((p) => p.sample === 5) && past.some((p) => p.sample === 10), `both rounds are in the history: ${JSON.stringify(past.map((p) => p.sample))}`);
    assert.ok(past.length <= 12, "no further back than the 60 s asked");
    await ch.close();
  });

  it("serves the overview's publish counter history with msg_rates_age", async () => {
    const r = await api("GET", "/api/overview?msg_rates_age=60&msg_rates_incr=5");
    const d = r.json.message_stats.publish_details as Details;
    assert.ok(d.samples.length >= 3, `samples: ${JSON.stringify(d.samples)}`);
    assert.ok(d.samples.slice(1).some((p) => p.sample >= 5));
  });

  it("names the ranges its history covers in the overview, as RabbitMQ 3.10 does with the default policies", async () => {
    const r = await api("GET", "/api/overview");
    assert.deepEqual(r.json.sample_retention_policies, { global: [600, 3600, 28800, 86400], basic: [600, 3600], detailed: [] });
  });

  it("answers only the live rate without chart parameters", async () => {
    const r = await api("GET", "/api/queues/%2F/history-q");
    assert.deepEqual(Object.keys(r.json.messages_details as object), ["rate"]);
  });
});

describe("management.sample_retention_policies in rabbitmq.conf", () => {
  it("replaces a policy's levels with the ones named (minute, hour, day or seconds)", () => {
    const { settings, unsupported } = readRabbitConf(
      ["management.sample_retention_policies.global.minute = 5", "management.sample_retention_policies.global.hour = 60", "management.sample_retention_policies.global.day = 1200", "management.sample_retention_policies.basic.600 = 10", "management.sample_retention_policies.detailed.10 = 5"].join("\n"),
      { loopbackUsers: [] },
    );
    assert.deepEqual(settings.sampleRetention, {
      global: [{ ageSeconds: 60, intervalSeconds: 5 }, { ageSeconds: 3600, intervalSeconds: 60 }, { ageSeconds: 86400, intervalSeconds: 1200 }],
      basic: [{ ageSeconds: 600, intervalSeconds: 10 }],
    });
    assert.deepEqual(unsupported, ["management.sample_retention_policies.detailed.10"], "Coney keeps no per-pair rates");
  });

  it("names the line of a bad level", () => {
    assert.throws(() => readRabbitConf("management.sample_retention_policies.global.week = 5", { loopbackUsers: [] }), (e) => e instanceof RabbitConfError && /line 1: .*'week' is not an age/.test(e.message));
    assert.throws(() => readRabbitConf("management.sample_retention_policies.basic.minute = 120", { loopbackUsers: [] }), (e) => e instanceof RabbitConfError && /within the age/.test(e.message));
  });
});
