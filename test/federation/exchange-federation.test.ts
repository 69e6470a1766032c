// Exchange federation between real Coney brokers on loopback: the upstream queue and internal
// exchange RabbitMQ's plugin declares, bindings that follow the downstream's, x-received-from,
// and max-hops on a three-broker chain A → B → C (C federates from B, B from A).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient, type Api } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";

async function federate(api: Api, upstream: TestBroker, value: Record<string, unknown>, pattern = "^fed\\."): Promise<void> {
  assert.equal((await api("PUT", "/api/parameters/federation-upstream/%2f/up", { value: { uri: upstream.amqpUrl, ...value } })).status, 201);
  assert.equal((await api("PUT", "/api/policies/%2f/federate", { pattern, "apply-to": "exchanges", definition: { "federation-upstream-set": "all" } })).status, 201);
}

async function running(api: Api, n: number): Promise<void> {
  await eventually(async () => {
    const links = (await api("GET", "/api/federation-links")).json as { status: string }[];
    return links.length === n && links.every((l) => l.status === "running");
  }, 10_000, `${n} running federation links`);
}

/** A queue bound to `exchange` with `key` on `broker`, and what arrives in it. */
async function subscriber(broker: TestBroker, exchange: string, key: string): Promise<{ got: amqp.ConsumeMessage[]; close(): Promise<void> }> {
  const conn = await amqp.connect(broker.amqpUrl);
  const ch = await conn.createChannel();
  await ch.assertExchange(exchange, "topic", { durable: true });
  const { queue } = await ch.assertQueue("", { exclusive: true });
  await ch.bindQueue(queue, exchange, key);
  const got: amqp.ConsumeMessage[] = [];
  await ch.consume(queue, (m) => m && got.push(m), { noAck: true });
  return { got, close: () => conn.close() };
}

async function publish(broker: TestBroker, exchange: string, key: string, body: string): Promise<void> {
  const conn = await amqp.connect(broker.amqpUrl);
  const ch = await conn.createConfirmChannel();
  await ch.assertExchange(exchange, "topic", { durable: true });
  ch.publish(exchange, key, Buffer.from(body), { persistent: true });
  await ch.waitForConfirms();
  await conn.close();
}

describe("exchange federation", () => {
  let a: TestBroker;
  let b: TestBroker;
  let c: TestBroker;
  const apiA = apiClient(() => a.httpUrl);
  const apiB = apiClient(() => b.httpUrl);
  const apiC = apiClient(() => c.httpUrl);
  before(async () => {
    // Distinct cluster names: federation tells brokers apart by them (cycle detection, queue names).
    a = await startTestBroker({ clusterName: "broker-a" });
    b = await startTestBroker({ clusterName: "broker-b" });
    c = await startTestBroker({ clusterName: "broker-c" });
  });
  after(async () => {
    await Promise.all([c?.close(), b?.close(), a?.close()]);
  });

  it("declares RabbitMQ's upstream queue and internal exchange, follows bindings, and forwards with x-received-from", async () => {
    const downstream = await subscriber(b, "fed.x", "a.#");
    await federate(apiB, a, { expires: 3_600_000, "message-ttl": 60_000 });
    await running(apiB, 1);
    const queueName = "federation: fed.x -> broker-b";
    await eventually(async () => (await apiA("GET", `/api/exchanges/%2f/fed.x/bindings/source`)).json.length === 1, 15_000, "the upstream binding");
    const q = (await apiA("GET", `/api/queues/%2f/${encodeURIComponent(queueName)}`)).json;
    assert.deepEqual(q.arguments, { "x-expires": 3_600_000, "x-message-ttl": 60_000, "x-internal-purpose": "federation" });
    assert.equal(q.durable, true);
    const [binding] = (await apiA("GET", `/api/exchanges/%2f/fed.x/bindings/source`)).json;
    assert.equal(binding.destination, `${queueName} A`);
    assert.equal(binding.destination_type, "exchange");
    assert.equal(binding.routing_key, "a.#");
    assert.deepEqual(binding.arguments["x-bound-from"], [{ "cluster-name": "broker-b", vhost: "/", exchange: "/:fed.x A", hops: 1 }]);
    const internal = (await apiA("GET", `/api/exchanges/%2f/${encodeURIComponent(`${queueName} A`)}`)).json;
    assert.equal(internal.type, "fanout");
    assert.equal(internal.internal, true);

    await publish(a, "fed.x", "a.b", "hello");
    await publish(a, "fed.x", "z.b", "not bound downstream");
    await eventually(() => downstream.got.length === 1, 15_000, "the federated message");
    const m = downstream.got[0]!;
    assert.equal(m.content.toString(), "hello");
    assert.equal(m.fields.routingKey, "a.b");
    assert.equal(m.properties.deliveryMode, 2);
    const hop = (m.properties.headers!["x-received-from"] as Record<string, unknown>[])[0]!;
    assert.equal(hop["uri"], `amqp://127.0.0.1:${a.amqpPort}/%2F`);
    assert.equal(hop["exchange"], "fed.x");
    assert.equal(hop["redelivered"], false);
    assert.equal(hop["vhost"], "/");

    // A new downstream binding travels upstream; removing it unbinds upstream.
    const second = await subscriber(b, "fed.x", "k.*");
    await eventually(async () => (await apiA("GET", `/api/exchanges/%2f/fed.x/bindings/source`)).json.length === 2, 15_000, "the second upstream binding");
    await second.close();
    await eventually(async () => (await apiA("GET", `/api/exchanges/%2f/fed.x/bindings/source`)).json.length === 1, 15_000, "the second binding gone upstream");
    await downstream.close();

    // Deleting the policy stops the link, which cleans up what it declared upstream.
    assert.equal((await apiB("DELETE", "/api/policies/%2f/federate")).status, 204);
    await eventually(async () => (await apiB("GET", "/api/federation-links")).json.length === 0, 15_000, "the link gone");
    await eventually(async () => (await apiA("GET", `/api/queues/%2f/${encodeURIComponent(queueName)}`)).status === 404, 15_000, "the upstream queue deleted");
    assert.equal((await apiA("GET", `/api/exchanges/%2f/${encodeURIComponent(`${queueName} A`)}`)).status, 404);
    assert.equal((await apiB("DELETE", "/api/parameters/federation-upstream/%2f/up")).status, 204);
  });

  it("uses an upstream exchange that already exists as it is, as RabbitMQ's passive declare does", async () => {
    // Upstream: a fanout exchange; downstream: a topic exchange of the same name.
    const conn = await amqp.connect(a.amqpUrl);
    const ch = await conn.createChannel();
    await ch.assertExchange("fed.kind", "fanout", { durable: true });
    await conn.close();
    const downstream = await subscriber(b, "fed.kind", "x.#");
    await federate(apiB, a, {}, "^fed\\.kind$");
    await running(apiB, 1);
    assert.equal((await apiA("GET", "/api/exchanges/%2f/fed.kind")).json.type, "fanout");
    await eventually(async () => (await apiA("GET", "/api/exchanges/%2f/fed.kind/bindings/source")).json.length === 1, 15_000, "the upstream binding");
    const pconn = await amqp.connect(a.amqpUrl);
    const pch = await pconn.createConfirmChannel();
    pch.publish("fed.kind", "x.y", Buffer.from("kind"));
    await pch.waitForConfirms();
    await pconn.close();
    await eventually(() => downstream.got.length === 1, 15_000, "the message downstream");
    await downstream.close();
    await apiB("DELETE", "/api/policies/%2f/federate");
    await apiB("DELETE", "/api/parameters/federation-upstream/%2f/up");
    await eventually(async () => (await apiB("GET", "/api/federation-links")).json.length === 0, 15_000, "the link gone");
  });

  it("federates from another vhost of the same broker with a host-less amqp:// URI (no TCP to itself)", async () => {
    assert.equal((await apiA("PUT", "/api/vhosts/source", {})).status, 201);
    const conn = await amqp.connect(a.amqpUrl);
    const ch = await conn.createChannel();
    await ch.assertExchange("fed.local", "direct", { durable: true });
    const { queue } = await ch.assertQueue("", { exclusive: true });
    await ch.bindQueue(queue, "fed.local", "k");
    assert.equal((await apiA("PUT", "/api/parameters/federation-upstream/%2f/here", { value: { uri: "amqp:///source" } })).status, 201);
    assert.equal((await apiA("PUT", "/api/policies/%2f/local", { pattern: "^fed\\.local$", "apply-to": "exchanges", definition: { "federation-upstream": "here" } })).status, 201);
    await running(apiA, 1);
    // The upstream queue's name says which vhost and exchange it feeds (they differ from the upstream's).
    const q = (await apiA("GET", `/api/queues/source/${encodeURIComponent("federation: fed.local -> broker-a:/:fed.local")}`)).json;
    assert.equal(q.arguments["x-internal-purpose"], "federation");
    const sconn = await amqp.connect(a.urlFor("guest", "guest", "source"));
    const sch = await sconn.createConfirmChannel();
    sch.publish("fed.local", "k", Buffer.from("across vhosts"));
    await sch.waitForConfirms();
    await sconn.close();
    await eventually(async () => (await ch.get(queue, { noAck: true })) !== false, 15_000, "the message in the other vhost");
    await conn.close();
    await apiA("DELETE", "/api/policies/%2f/local");
    await apiA("DELETE", "/api/parameters/federation-upstream/%2f/here");
    await eventually(async () => (await apiA("GET", "/api/federation-links")).json.length === 0, 15_000, "the link gone");
  });

  for (const maxHops of [1, 2]) {
    it(`carries a message published on A to C through B only when C's upstream has max-hops ≥ 2 (max-hops ${maxHops})`, async () => {
      const x = `fed.chain${maxHops}`;
      // B federates from A with max-hops 2 so B passes C's bindings on; C's max-hops is the one tested.
      await federate(apiB, a, { "max-hops": 2 }, `^${x}$`);
      await federate(apiC, b, { "max-hops": maxHops }, `^${x}$`);
      const atC = await subscriber(c, x, "#");
      await running(apiB, 1);
      await running(apiC, 1);
      // C's binding reaches B's exchange with hops = C's max-hops, and A's only while hops remain.
      await eventually(async () => (await apiB("GET", `/api/exchanges/%2f/${x}/bindings/source`)).json.length === 1, 15_000, "C's binding on B");
      if (maxHops === 2) await eventually(async () => (await apiA("GET", `/api/exchanges/%2f/${x}/bindings/source`)).json.length === 1, 15_000, "C's binding on A through B");
      else assert.equal((await apiA("GET", `/api/exchanges/%2f/${x}/bindings/source`)).json.length, 0);
      // A local consumer on B binds A → B whatever C's max-hops, so A's messages reach B's exchange.
      const atB = await subscriber(b, x, "#");
      await eventually(async () => (await apiA("GET", `/api/exchanges/%2f/${x}/bindings/source`)).json.length >= 1, 15_000, "B's binding on A");
      await publish(a, x, "from.a", "from A");
      await eventually(() => atB.got.some((m) => m.content.toString() === "from A"), 15_000, "A's message at B");
      // B's own message goes through the same upstream queue on B after A's: once it is at C, C's
      // link has handled A's message too (forwarded with max-hops 2, dropped with max-hops 1).
      await publish(b, x, "from.b", "from B");
      await eventually(() => atC.got.some((m) => m.content.toString() === "from B"), 15_000, "B's message at C");
      const fromA = atC.got.filter((m) => m.content.toString() === "from A");
      if (maxHops === 2) {
        assert.equal(fromA.length, 1);
        const hops = fromA[0]!.properties.headers!["x-received-from"] as Record<string, unknown>[];
        assert.deepEqual(hops.map((h) => h["uri"]), [`amqp://127.0.0.1:${b.amqpPort}/%2F`, `amqp://127.0.0.1:${a.amqpPort}/%2F`]);
      } else {
        assert.equal(fromA.length, 0, "a message that made max-hops hops is dropped");
      }
      await atB.close();
      await atC.close();
      for (const api of [apiB, apiC]) {
        await api("DELETE", "/api/policies/%2f/federate");
        await api("DELETE", "/api/parameters/federation-upstream/%2f/up");
      }
      await eventually(async () => (await apiC("GET", "/api/federation-links")).json.length === 0 && (await apiB("GET", "/api/federation-links")).json.length === 0, 15_000, "links gone");
    });
  }
});
