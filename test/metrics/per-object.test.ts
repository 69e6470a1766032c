// Per-object series appear and disappear with their queues, channels and connections; the
// detailed endpoint selects family groups and filters queue groups by vhost.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { samplesOf, type ParsedFamily } from "./exposition-parser.js";
import { startMetricsBroker, type MetricsBroker } from "./metrics-fixture.js";

const queuesIn = (families: ParsedFamily[], family: string): string[] =>
  samplesOf(families, family)
    .map((s) => `${s.labels["vhost"]}/${s.labels["queue"]}`)
    .sort();

describe("per-object and detailed series", () => {
  let b: MetricsBroker;
  before(async () => {
    b = await startMetricsBroker();
  });
  after(() => b.close());

  it("a queue's series appear when it is declared and disappear when it is deleted", async () => {
    const conn = await amqp.connect(b.amqpUrl);
    try {
      const ch = await conn.createChannel();
      await ch.assertQueue("po.one", { durable: false });
      await ch.assertQueue("po.two", { durable: false });
      let families = await b.scrape("/metrics/per-object");
      assert.deepEqual(queuesIn(families, "rabbitmq_queue_messages_ready"), ["//po.one", "//po.two"]);
      // Every per-queue family has one series per queue.
      for (const f of families.filter((x) => x.name.startsWith("rabbitmq_queue_") && x.name !== "rabbitmq_queue_head_message_timestamp")) {
        assert.equal(f.samples.length, 2, f.name);
      }
      // /metrics aggregates: no queue labels there.
      assert.deepEqual(samplesOf(await b.scrape(), "rabbitmq_queue_messages_ready").map((s) => s.labels), [{}]);

      // A channel's and a connection's series exist while they do.
      const channels = samplesOf(families, "rabbitmq_channel_consumers").map((s) => s.labels["channel"]);
      assert.equal(channels.length, 1);
      assert.equal(samplesOf(families, "rabbitmq_connection_channels").length, 1);

      await ch.deleteQueue("po.one");
      families = await b.scrape("/metrics/per-object");
      assert.deepEqual(queuesIn(families, "rabbitmq_queue_messages_ready"), ["//po.two"]);
      assert.deepEqual(queuesIn(families, "rabbitmq_queue_process_memory_bytes"), ["//po.two"]);
      await ch.deleteQueue("po.two");
    } finally {
      await conn.close();
    }
    await eventually(async () => {
      const families = await b.scrape("/metrics/per-object");
      return samplesOf(families, "rabbitmq_channel_consumers").length === 0 && samplesOf(families, "rabbitmq_connection_channels").length === 0;
    }, 5000, "the closed connection's series to go");
    assert.deepEqual(queuesIn(await b.scrape("/metrics/per-object"), "rabbitmq_queue_messages_ready"), []);
  });

  it("/metrics/detailed gives only the asked groups, queue groups filtered by vhost", async () => {
    const api = apiClient(() => b.httpUrl);
    assert.equal((await api("PUT", "/api/vhosts/other", {})).status, 201);
    assert.ok([201, 204].includes((await api("PUT", "/api/permissions/other/guest", { configure: ".*", write: ".*", read: ".*" })).status));
    const home = await amqp.connect(b.amqpUrl);
    const other = await amqp.connect(b.urlFor("guest", "guest", "other"));
    try {
      await (await home.createChannel()).assertQueue("d.home", { durable: false });
      await (await other.createChannel()).assertQueue("d.other", { durable: false });

      const all = await b.scrape("/metrics/detailed?family=queue_coarse_metrics");
      assert.deepEqual(
        all.map((f) => f.name).filter((n) => n.startsWith("rabbitmq_detailed_")),
        ["rabbitmq_detailed_queue_messages_ready", "rabbitmq_detailed_queue_messages_unacked", "rabbitmq_detailed_queue_messages"],
      );
      assert.deepEqual(queuesIn(all, "rabbitmq_detailed_queue_messages_ready"), ["//d.home", "other/d.other"]);

      const filtered = await b.scrape("/metrics/detailed?family=queue_coarse_metrics&family=queue_consumer_count&vhost=other");
      assert.deepEqual(queuesIn(filtered, "rabbitmq_detailed_queue_messages_ready"), ["other/d.other"]);
      assert.deepEqual(queuesIn(filtered, "rabbitmq_detailed_queue_consumers"), ["other/d.other"]);

      // No family asked: identity only, as RabbitMQ answers.
      const none = await b.scrape("/metrics/detailed");
      assert.deepEqual(none.map((f) => f.name), ["rabbitmq_build_info", "rabbitmq_identity_info"]);
      assert.equal(samplesOf(none, "rabbitmq_identity_info")[0]!.labels["rabbitmq_endpoint"], "detailed");

      const cluster = await b.scrape("/metrics/detailed?family=vhost_status&family=exchange_bindings");
      assert.deepEqual(samplesOf(cluster, "rabbitmq_cluster_vhost_status").map((s) => s.labels["vhost"]).sort(), ["/", "other"]);
      const direct = samplesOf(cluster, "rabbitmq_cluster_exchange_bindings").find((s) => s.labels["vhost"] === "/" && s.labels["exchange"] === "amq.direct");
      assert.deepEqual(direct && { type: direct.labels["type"], value: direct.value }, { type: "direct", value: 0 });
    } finally {
      await home.close();
      await other.close();
    }
  });
});
