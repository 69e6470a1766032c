// Queue federation between two real Coney brokers: the downstream queue pulls from the upstream
// queue only while it has a consumer with spare capacity and nothing ready (RabbitMQ's rule), the
// upstream broker's own consumers are served first (the link consumes with x-priority -1), and
// moved messages carry x-received-from and the original exchange and routing key.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";

describe("queue federation", () => {
  let up: TestBroker;
  let down: TestBroker;
  const apiUp = apiClient(() => up.httpUrl);
  const apiDown = apiClient(() => down.httpUrl);
  before(async () => {
    up = await startTestBroker({ clusterName: "upstream" });
    down = await startTestBroker({ clusterName: "downstream" });
    assert.equal((await apiDown("PUT", "/api/parameters/federation-upstream/%2f/origin", { value: { uri: up.amqpUrl, "prefetch-count": 50 } })).status, 201);
    assert.equal((await apiDown("PUT", "/api/policies/%2f/fedq", { pattern: "^fed\\.", "apply-to": "queues", definition: { "federation-upstream": "origin" } })).status, 201);
  });
  after(async () => {
    await down?.close();
    await up?.close();
  });

  const upstreamConsumers = async (q: string): Promise<number> => (await apiUp("GET", `/api/queues/%2f/${q}`)).json.consumers as number;

  it("pulls only while the downstream queue has a consumer with capacity, with RabbitMQ's headers", async () => {
    const downConn = await amqp.connect(down.amqpUrl);
    const dch = await downConn.createChannel();
    await dch.assertQueue("fed.q1", { durable: true });
    await eventually(async () => {
      const links = (await apiDown("GET", "/api/federation-links/%2f")).json as Record<string, unknown>[];
      return links.length === 1 && links[0]!["status"] === "running";
    }, 10_000, "the queue link running");
    const [link] = (await apiDown("GET", "/api/federation-links/%2f")).json as Record<string, unknown>[];
    assert.equal(link!["type"], "queue");
    assert.equal(link!["queue"], "fed.q1");
    assert.equal(link!["upstream_queue"], "fed.q1");
    assert.equal(link!["consumer_tag"], "federation-link-origin");
    // The link declared the upstream queue as the downstream one is.
    const upConn = await amqp.connect(up.amqpUrl);
    const uch = await upConn.createConfirmChannel();
    await uch.checkQueue("fed.q1");
    for (let i = 0; i < 5; i++) uch.sendToQueue("fed.q1", Buffer.from(`m${i}`), { persistent: true });
    await uch.waitForConfirms();
    // No downstream consumer: the link does not consume upstream, the messages stay there.
    assert.equal(await upstreamConsumers("fed.q1"), 0);
    assert.equal((await apiUp("GET", "/api/queues/%2f/fed.q1")).json.messages, 5);

    const got: amqp.ConsumeMessage[] = [];
    await dch.consume("fed.q1", (m) => {
      if (m) {
        got.push(m);
        dch.ack(m);
      }
    });
    await eventually(() => got.length === 5, 15_000, "five messages pulled downstream");
    assert.deepEqual(got.map((m) => m.content.toString()), ["m0", "m1", "m2", "m3", "m4"]);
    const h = got[0]!.properties.headers!;
    assert.equal(h["x-original-exchange"], "");
    assert.equal(h["x-original-routing-key"], "fed.q1");
    const [hop] = h["x-received-from"] as Record<string, unknown>[];
    assert.deepEqual(hop, { uri: `amqp://127.0.0.1:${up.amqpPort}/%2F`, queue: "fed.q1", redelivered: false, "visit-count": 1 });
    await eventually(async () => (await apiUp("GET", "/api/queues/%2f/fed.q1")).json.messages === 0, 15_000, "the upstream queue drained (acked on confirm)");

    // The downstream consumer goes: the link cancels its upstream consumer.
    await dch.close();
    await eventually(async () => (await upstreamConsumers("fed.q1")) === 0, 15_000, "the link's upstream consumer cancelled");
    await downConn.close();
    await upConn.close();
  });

  it("serves the upstream broker's consumers first and moves the rest to the downstream's", async () => {
    const downConn = await amqp.connect(down.amqpUrl);
    const dch = await downConn.createChannel();
    await dch.assertQueue("fed.q2", { durable: true });
    const atDown: string[] = [];
    await dch.consume("fed.q2", (m) => {
      if (m) {
        atDown.push(m.content.toString());
        dch.ack(m);
      }
    });
    const upConn = await amqp.connect(up.amqpUrl);
    const busy = await upConn.createChannel();
    await busy.prefetch(1);
    await eventually(async () => (await apiUp("GET", "/api/queues/%2f/fed.q2")).status === 200, 10_000, "the upstream queue declared by the link");
    await eventually(async () => (await upstreamConsumers("fed.q2")) === 1, 15_000, "the link consuming upstream");
    // An upstream consumer that takes one message and keeps it: priority 0 beats the link's -1.
    const atUp: string[] = [];
    await busy.consume("fed.q2", (m) => m && atUp.push(m.content.toString()));
    const pub = await upConn.createConfirmChannel();
    for (let i = 0; i < 10; i++) pub.sendToQueue("fed.q2", Buffer.from(`n${i}`), { persistent: true });
    await pub.waitForConfirms();
    await eventually(() => atDown.length === 9, 15_000, "nine messages downstream");
    assert.deepEqual(atUp, ["n0"]);
    assert.deepEqual(atDown, ["n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9"]);
    await upConn.close();
    await downConn.close();
  });
});
