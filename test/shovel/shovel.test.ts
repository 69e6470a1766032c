// Dynamic shovels between two real Coney brokers on loopback: the shovel is defined on B (its
// destination is B itself, `amqp://`) and pulls from A over AMQP. Queue → queue and exchange →
// queue, every ack-mode, src-delete-after queue-length, the forward/timestamp headers and
// publish properties, the API's records, restart and delete.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { useTwoBrokers } from "../helpers/broker-fixture.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { drain, publishConfirmed, queueCounts, waitForState } from "./shovel-helpers.js";

describe("dynamic shovels", () => {
  const two = useTwoBrokers({}, { prometheusPort: 0 });
  const apiA = apiClient(() => two.a.httpUrl);
  const apiB = apiClient(() => two.b.httpUrl);

  const put = (name: string, value: Record<string, unknown>) => apiB("PUT", `/api/parameters/shovel/%2f/${name}`, { value });

  for (const ackMode of ["on-confirm", "on-publish", "no-ack"]) {
    it(`moves a queue's messages to a queue on the other broker (${ackMode})`, async () => {
      const src = `src-${ackMode}`;
      const dest = `dest-${ackMode}`;
      await publishConfirmed(two.a.amqpUrl, 200, { queue: src });
      assert.equal((await put(`qq-${ackMode}`, { "src-uri": two.a.amqpUrl, "src-queue": src, "dest-uri": "amqp://", "dest-queue": dest, "ack-mode": ackMode })).status, 201);
      await waitForState(apiB, "/", `qq-${ackMode}`, "running");
      const got = await drain(two.b.amqpUrl, dest, 200);
      assert.deepEqual(got.map((m) => m.content.toString()), Array.from({ length: 200 }, (_, i) => String(i)), "all, in order, once");
      assert.equal(got[0]!.properties.deliveryMode, 2);
      await eventually(async () => (await queueCounts(apiA, "/", src))?.messages === 0 && (await queueCounts(apiA, "/", src))?.unacked === 0, 5000, "the source emptied and settled");
      const record = await waitForState(apiB, "/", `qq-${ackMode}`, "running");
      assert.deepEqual(Object.keys(record).sort(), ["dest_protocol", "dest_queue", "dest_uri", "name", "node", "src_protocol", "src_queue", "src_uri", "state", "timestamp", "type", "vhost"]);
      assert.equal(record["src_uri"], `amqp://127.0.0.1:${two.a.amqpPort}/%2F`);
      assert.equal(record["dest_uri"], "amqp://");
      assert.equal(record["src_queue"], src);
      assert.equal(record["type"], "dynamic");
      assert.match(record["timestamp"] as string, /^\d{4}-\d\d-\d\d \d{1,2}:\d\d:\d\d$/);
    });
  }

  it("moves what an exchange routes, with forward and timestamp headers and publish properties", async () => {
    assert.equal((await put("from-topic", {
      "src-uri": two.a.amqpUrl, "src-exchange": "amq.topic", "src-exchange-key": "t.#",
      "dest-uri": "amqp://", "dest-queue": "from-topic",
      "dest-add-forward-headers": true, "dest-add-timestamp-header": true, "dest-publish-properties": { app_id: "shovelled", priority: 3 },
    })).status, 201);
    await waitForState(apiB, "/", "from-topic", "running");
    await publishConfirmed(two.a.amqpUrl, 10, { exchange: "amq.topic", key: "t.x" });
    await publishConfirmed(two.a.amqpUrl, 5, { exchange: "amq.topic", key: "other" });
    const got = await drain(two.b.amqpUrl, "from-topic", 10);
    assert.equal(got.length, 10, "only what the key matched");
    const p = got[0]!.properties;
    assert.equal(p.appId, "shovelled");
    assert.equal(p.priority, 3);
    const [record] = p.headers!["x-shovelled"] as Record<string, unknown>[];
    assert.equal(record!["shovel-name"], "from-topic");
    assert.equal(record!["shovel-type"], "dynamic");
    assert.equal(record!["shovel-vhost"], "/");
    assert.equal(record!["src-exchange"], "amq.topic");
    assert.equal(record!["src-exchange-key"], "t.#");
    assert.equal(record!["dest-queue"], "from-topic");
    assert.equal(record!["src-uri"], `amqp://127.0.0.1:${two.a.amqpPort}/%2F`);
    assert.ok(Math.abs(Number(p.headers!["x-shovelled-timestamp"]) - Date.now() / 1000) < 60);
    const status = await waitForState(apiB, "/", "from-topic", "running");
    assert.equal(status["src_exchange"], "amq.topic");
    assert.equal(status["src_exchange_key"], "t.#");
  });

  it("src-delete-after queue-length moves what was there when it started, then deletes itself", async () => {
    await publishConfirmed(two.a.amqpUrl, 30, { queue: "once" });
    assert.equal((await put("once", { "src-uri": two.a.amqpUrl, "src-queue": "once", "src-delete-after": "queue-length", "dest-uri": "amqp://", "dest-queue": "once-dest" })).status, 201);
    await eventually(async () => (await apiB("GET", "/api/parameters/shovel/%2f/once")).status === 404, 10_000, "the shovel deleted itself");
    assert.equal((await queueCounts(apiB, "/", "once-dest"))?.messages, 30);
    await eventually(async () => (await queueCounts(apiA, "/", "once"))?.unacked === 0, 5000, "nothing left unacked at the source");
    await publishConfirmed(two.a.amqpUrl, 3, { queue: "once" });
    assert.equal((await queueCounts(apiA, "/", "once"))?.messages, 3, "later messages stay");
    assert.equal((await apiB("GET", "/api/shovels/vhost/%2f/once")).status, 404);
  });

  it("a numeric src-delete-after moves that many", async () => {
    await publishConfirmed(two.a.amqpUrl, 20, { queue: "some" });
    await put("some", { "src-uri": two.a.amqpUrl, "src-queue": "some", "src-delete-after": 7, "dest-uri": "amqp://", "dest-queue": "some-dest" });
    await eventually(async () => (await apiB("GET", "/api/parameters/shovel/%2f/some")).status === 404, 10_000, "the shovel deleted itself");
    assert.equal((await queueCounts(apiB, "/", "some-dest"))?.messages, 7);
    await eventually(async () => (await queueCounts(apiA, "/", "some"))?.messages === 13, 5000, "the rest back in the source");
  });

  it("restart and delete through /api/shovels; unknown shovels are 404", async () => {
    await put("ctl", { "src-uri": two.a.amqpUrl, "src-queue": "ctl", "dest-uri": "amqp://", "dest-queue": "ctl-dest" });
    await waitForState(apiB, "/", "ctl", "running");
    assert.equal((await apiB("DELETE", "/api/shovels/vhost/%2f/ctl/restart")).status, 204);
    await waitForState(apiB, "/", "ctl", "running");
    const one = await apiB("GET", "/api/shovels/vhost/%2f/ctl");
    assert.equal(one.status, 200);
    assert.ok(Array.isArray(one.json), "RabbitMQ answers the vhost's list here");
    assert.equal((await apiB("DELETE", "/api/shovels/vhost/%2f/nope/restart")).status, 404);
    assert.equal((await apiB("GET", "/api/shovels/vhost/%2f/nope")).status, 404);
    assert.equal((await apiB("DELETE", "/api/shovels/vhost/%2f/ctl")).status, 204);
    assert.equal((await apiB("GET", "/api/parameters/shovel/%2f/ctl")).status, 404);
    await eventually(() => !two.b.shovels.has("/", "ctl"));
    assert.equal((await apiB("GET", "/api/shovels", undefined, "nobody:x")).status, 401);
  });

  it("Prometheus: each shovel's state and transferred count", async () => {
    await publishConfirmed(two.a.amqpUrl, 25, { queue: "metered" });
    await put("metered", { "src-uri": two.a.amqpUrl, "src-queue": "metered", "dest-uri": "amqp://", "dest-queue": "metered-dest" });
    await waitForState(apiB, "/", "metered", "running");
    let text = "";
    await eventually(async () => {
      text = await (await fetch(`http://127.0.0.1:${two.b.prometheusPort}/metrics`)).text();
      return text.includes('coney_shovel_messages_transferred_total{vhost="/",shovel="metered"} 25');
    }, 10_000, "25 transferred in the metrics");
    assert.match(text, /# TYPE coney_shovel_state gauge/);
    assert.ok(text.includes('coney_shovel_state{vhost="/",shovel="metered",state="running"} 1'), text);
    assert.ok(text.includes('coney_shovel_state{vhost="/",shovel="metered",state="terminated"} 0'));
    await apiB("DELETE", "/api/parameters/shovel/%2f/metered");
  });

  it("a deleted vhost takes its shovels with it", async () => {
    await apiB("PUT", "/api/vhosts/tmp", {});
    await apiB("PUT", "/api/permissions/tmp/guest", { configure: ".*", write: ".*", read: ".*" });
    await apiB("PUT", "/api/parameters/shovel/tmp/in-tmp", { value: { "src-uri": two.a.amqpUrl, "src-queue": "tmpq", "dest-uri": "amqp:///tmp", "dest-queue": "x" } });
    await waitForState(apiB, "tmp", "in-tmp", "running");
    await apiB("DELETE", "/api/vhosts/tmp");
    assert.equal(two.b.shovels.has("tmp", "in-tmp"), false);
  });
});
