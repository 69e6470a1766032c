// Live definitions following (issue 42; docs/CLUSTERING.md "Following definitions live"): every
// topology change made on broker A — over AMQP by amqplib, over the management API by fetch — is
// applied on broker B, which answers its own management API with it. Both brokers are real, on
// loopback ephemeral ports; the changes cross as JSON, as a transport carries them.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { MirrorOutbox } from "../../src/broker/mirror-outbox.js";
import { applyMirroredChange } from "../../src/broker/topology-apply.js";
import { followSnapshot, topologySnapshot } from "../../src/broker/topology-snapshot.js";
import type { MirroredChange } from "../../src/broker/topology-mirror.js";

/** A's changes reach B as JSON, applied in order; what failed to apply is kept for the test to see. */
function follow(a: TestBroker, b: TestBroker): { failures: unknown[] } {
  const failures: unknown[] = [];
  a.broker.mirror = new MirrorOutbox((batch) => {
    const wire = JSON.stringify(batch);
    setImmediate(() => {
      for (const change of JSON.parse(wire) as MirroredChange[]) {
        try {
          applyMirroredChange(b.broker, change);
        } catch (err) {
          failures.push(err);
        }
      }
    });
  });
  return { failures };
}

describe("a node follows another node's topology live", () => {
  let a: TestBroker;
  let b: TestBroker;
  let conn: ChannelModel;
  let link: { failures: unknown[] };
  const apiA = apiClient(() => a.httpUrl);
  const apiB = apiClient(() => b.httpUrl);
  // A creation answers 201, or 204 where RabbitMQ answers 204 (topic permissions, limits).
  const created = (status: number): void => assert.ok(status === 201 || status === 204, `status ${status}`);
  const onB = async (path: string): Promise<number> => (await apiB("GET", path)).status;

  before(async () => {
    a = await startTestBroker();
    // Its own node name: a record of an exclusive queue names its owner's node (topology-apply.ts).
    b = await startTestBroker({ nodeName: "follower-b@test" });
    link = follow(a, b);
    conn = await amqp.connect(a.amqpUrl);
  });
  after(async () => {
    await conn.close();
    await b.close();
    await a.close();
  });

  it("exchanges, queues and bindings declared over AMQP, durable or not, exclusive queues too (locked to their owner)", async () => {
    const ch = await conn.createChannel();
    await ch.assertExchange("f.durable", "topic", { durable: true });
    await ch.assertExchange("f.transient", "fanout", { durable: false, autoDelete: true });
    await ch.assertQueue("f.q1", { durable: true, arguments: { "x-max-length": 10 } });
    await ch.assertQueue("f.q2", { durable: false });
    const excl = await ch.assertQueue("", { exclusive: true });
    await ch.bindQueue("f.q1", "f.durable", "a.#");
    await ch.bindQueue("f.q2", "f.transient", "");
    await ch.bindExchange("f.transient", "f.durable", "b.*");
    await ch.bindQueue(excl.queue, "f.durable", "c");
    await eventually(async () => (await onB("/api/queues/%2F/f.q2")) === 200, 5000, "f.q2 on B");
    const q1 = (await apiB("GET", "/api/queues/%2F/f.q1")).json;
    assert.equal(q1.durable, true);
    assert.deepEqual(q1.arguments, { "x-max-length": 10 });
    assert.equal((await apiB("GET", "/api/exchanges/%2F/f.transient")).json.auto_delete, true);
    const bindings = (await apiB("GET", "/api/exchanges/%2F/f.durable/bindings/source")).json as Array<{ destination: string; routing_key: string }>;
    assert.deepEqual(bindings.map((x) => `${x.destination}:${x.routing_key}`).sort(), [`${excl.queue}:c`, "f.q1:a.#", "f.transient:b.*"].sort());
    assert.equal((await apiB("GET", `/api/queues/%2F/${encodeURIComponent(excl.queue)}`)).json.exclusive, true);
    // Its owner deletes it: gone on B too, with its binding.
    await ch.deleteQueue(excl.queue);
    await eventually(async () => (await onB(`/api/queues/%2F/${encodeURIComponent(excl.queue)}`)) === 404, 5000, "the exclusive queue gone from B");
    await ch.close();
  });

  it("users, vhosts, permissions, policies and parameters set over the management API", async () => {
    created((await apiA("PUT", "/api/vhosts/fv", { description: "followed" })).status);
    created((await apiA("PUT", "/api/users/fu", { password: "pw", tags: "monitoring" })).status);
    created((await apiA("PUT", "/api/permissions/fv/fu", { configure: "^f", write: ".*", read: ".*" })).status);
    created((await apiA("PUT", "/api/topic-permissions/fv/fu", { exchange: "amq.topic", write: "^w", read: "^r" })).status);
    created((await apiA("PUT", "/api/policies/fv/p1", { pattern: "^q", definition: { "max-length": 5 }, "apply-to": "queues" })).status);
    created((await apiA("PUT", "/api/operator-policies/fv/op1", { pattern: "^q", definition: { "max-length": 7 }, "apply-to": "queues" })).status);
    created((await apiA("PUT", "/api/vhost-limits/fv/max-queues", { value: 50 })).status);
    created((await apiA("PUT", "/api/global-parameters/f-param", { value: { a: 1 } })).status);
    await eventually(async () => (await onB("/api/global-parameters/f-param")) === 200, 5000, "the global parameter on B");
    assert.equal((await apiB("GET", "/api/vhosts/fv")).json.description, "followed");
    assert.deepEqual((await apiB("GET", "/api/users/fu")).json.tags, ["monitoring"]);
    // The password hash travelled: the user logs in on B with A's password.
    assert.equal((await apiB("GET", "/api/whoami", undefined, "fu:pw")).status, 200);
    assert.equal((await apiB("GET", "/api/permissions/fv/fu")).json.configure, "^f");
    assert.equal((await apiB("GET", "/api/topic-permissions/fv/fu")).json[0].write, "^w");
    assert.deepEqual((await apiB("GET", "/api/policies/fv/p1")).json.definition, { "max-length": 5 });
    assert.deepEqual((await apiB("GET", "/api/operator-policies/fv/op1")).json.definition, { "max-length": 7 });
    assert.deepEqual((await apiB("GET", "/api/vhost-limits/fv")).json[0].value, { "max-queues": 50 });
  });

  it("removals: an unbind, a queue with its bindings, an exchange, a user with its permissions, a vhost", async () => {
    const ch = await conn.createChannel();
    await ch.assertExchange("r.x", "direct", { durable: false });
    await ch.assertQueue("r.q1", { durable: false });
    await ch.assertQueue("r.q2", { durable: true });
    await ch.bindQueue("r.q1", "r.x", "k1");
    await ch.bindQueue("r.q2", "r.x", "k2");
    await apiA("PUT", "/api/users/ru", { password: "pw", tags: "" });
    await apiA("PUT", "/api/permissions/%2F/ru", { configure: ".*", write: ".*", read: ".*" });
    await eventually(async () => (await onB("/api/permissions/%2F/ru")) === 200, 5000, "ru's permission on B");
    await ch.unbindQueue("r.q1", "r.x", "k1");
    await ch.deleteQueue("r.q2");
    await apiA("DELETE", "/api/users/ru");
    await eventually(async () => (await onB("/api/users/ru")) === 404, 5000, "ru gone on B");
    assert.equal(await onB("/api/permissions/%2F/ru"), 404);
    assert.equal(await onB("/api/queues/%2F/r.q2"), 404);
    assert.deepEqual((await apiB("GET", "/api/exchanges/%2F/r.x/bindings/source")).json, []);
    await ch.deleteExchange("r.x");
    assert.equal((await apiA("DELETE", "/api/vhosts/fv")).status, 204);
    await eventually(async () => (await onB("/api/vhosts/fv")) === 404, 5000, "fv gone on B");
    assert.equal(await onB("/api/exchanges/%2F/r.x"), 404);
    assert.equal(await onB("/api/queues/%2F/r.q1"), 200);
    await ch.close();
  });

  it("announces nothing on the follower: its event exchange carries only its own changes", async () => {
    const local = await amqp.connect(b.amqpUrl);
    const ch = await local.createChannel();
    const events = await ch.assertQueue("", { exclusive: true });
    await ch.bindQueue(events.queue, "amq.rabbitmq.event", "queue.created");
    const chA = await conn.createChannel();
    await chA.assertQueue("e.from-a", { durable: false });
    await eventually(async () => (await onB("/api/queues/%2F/e.from-a")) === 200, 5000, "e.from-a on B");
    await ch.assertQueue("e.on-b", { durable: false });
    const first = await new Promise<amqp.ConsumeMessage>((resolve) => void ch.consume(events.queue, (m) => m && resolve(m), { noAck: true }));
    assert.equal(first.properties.headers?.["name"], "e.on-b");
    await local.close();
    await chA.close();
  });

  it("a shovel's parameter is known on the follower, and the shovel runs only where it was set", async () => {
    const uri = a.amqpUrl;
    const put = await apiA("PUT", "/api/parameters/shovel/%2F/s1", { value: { "src-uri": uri, "src-queue": "s.src", "dest-uri": uri, "dest-queue": "s.dst" } });
    assert.equal(put.status, 201);
    await eventually(async () => (await onB("/api/parameters/shovel/%2F/s1")) === 200, 5000, "the shovel parameter on B");
    await eventually(async () => ((await apiA("GET", "/api/shovels/%2F")).json as unknown[]).length === 1, 5000, "the shovel on A");
    assert.deepEqual((await apiB("GET", "/api/shovels/%2F")).json, []);
    await apiA("DELETE", "/api/parameters/shovel/%2F/s1");
    await eventually(async () => (await onB("/api/parameters/shovel/%2F/s1")) === 404, 5000, "the shovel parameter gone on B");
  });

  it("applies every change it was sent without a failure", () => {
    assert.deepEqual(link.failures, []);
  });
});

describe("a node that starts following takes the leader's whole topology", () => {
  let a: TestBroker;
  let c: TestBroker;
  before(async () => {
    a = await startTestBroker();
    c = await startTestBroker();
  });
  after(async () => {
    await c.close();
    await a.close();
  });

  it("adds what it lacks, removes what the leader no longer has, and applying again changes nothing", async () => {
    const conn = await amqp.connect(a.amqpUrl);
    const ch = await conn.createChannel();
    await ch.assertExchange("s.x", "headers", { durable: true, arguments: { "alternate-exchange": "amq.fanout" } });
    await ch.assertQueue("s.q", { durable: false, arguments: { "x-message-ttl": 1000 } });
    await ch.bindQueue("s.q", "s.x", "", { "x-match": "any", colour: "red" });
    await conn.close();
    const apiA = apiClient(() => a.httpUrl);
    const apiC = apiClient(() => c.httpUrl);
    await apiA("PUT", "/api/users/su", { password: "pw", tags: "management" });
    // C holds something the leader does not: it must go.
    await apiC("PUT", "/api/exchanges/%2F/stale", { type: "direct", durable: true });
    await apiC("PUT", "/api/users/stale-user", { password: "pw", tags: "" });

    const snapshot = JSON.parse(JSON.stringify(topologySnapshot(a.broker))) as MirroredChange[];
    followSnapshot(c.broker, snapshot);
    assert.equal((await apiC("GET", "/api/exchanges/%2F/stale")).status, 404);
    assert.equal((await apiC("GET", "/api/users/stale-user")).status, 404);
    assert.equal((await apiC("GET", "/api/exchanges/%2F/s.x")).json.arguments["alternate-exchange"], "amq.fanout");
    assert.deepEqual((await apiC("GET", "/api/queues/%2F/s.q")).json.arguments, { "x-message-ttl": 1000 });
    const bindings = (await apiC("GET", "/api/queues/%2F/s.q/bindings")).json as Array<{ source: string; arguments: unknown }>;
    assert.deepEqual(bindings.find((x) => x.source === "s.x")?.arguments, { "x-match": "any", colour: "red" });
    assert.equal((await apiC("GET", "/api/users/su")).status, 200);

    const before = JSON.stringify(topologySnapshot(c.broker));
    followSnapshot(c.broker, snapshot);
    assert.equal(JSON.stringify(topologySnapshot(c.broker)), before);
    assert.equal(JSON.stringify(topologySnapshot(c.broker)), JSON.stringify(snapshot));
  });
});
