// AMQP 1.0 beside AMQP 0-9-1 and MQTT on one broker: RabbitMQ 3.x's v1 addresses, the same
// permissions as 0-9-1 (amqp:unauthorized-access, amqp:not-found on attach), RabbitMQ 4's message
// conversions both ways with amqplib and mqtt.js, and the connection in /api/connections.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import mqtt from "mqtt";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { bodyOf, close, connect, data, linkError, openSender, receive, sendAll } from "../helpers/rhea-client.js";
import { eventually, withTimeout } from "../helpers/wait.js";
import type { ClientContext } from "../../src/broker/index.js";

describe("AMQP 1.0 with other protocols", () => {
  let broker: TestBroker;
  let ctx: ClientContext;
  const declare = (name: string): void => {
    broker.broker.declareQueue(ctx, "/", { name, durable: true, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
  };
  const queue = (name: string) => broker.broker.vhost("/").queues.get(name);

  before(async () => {
    broker = await startTestBroker({ mqttPort: 0, httpPort: 0 });
    ctx = { permissions: broker.broker.checkerFor("guest"), owner: null };
    broker.broker.putUser("reader", { password: "pw", tags: [] });
    broker.broker.setPermission("reader", "/", { configure: "^none$", write: "^none$", read: "^readable$" });
  });
  after(async () => {
    await broker.close();
  });

  it("v1 addresses: /queue/:q declares the queue, /amq/queue/:q must exist, /exchange/:x/:key and /topic/:key consume through a queue of the link's own", async () => {
    const c = await connect(broker.amqpPort);
    assert.equal((await sendAll(await openSender(c, "/queue/v1-made"), [{ body: data("one") }]))[0]!.outcome, "accepted");
    assert.equal(queue("v1-made")?.messageCount, 1);
    const { messages } = receive(c, "/amq/queue/v1-made", 1, { autoaccept: true });
    assert.equal(bodyOf((await messages)[0]!.message).toString(), "one");
    const missing = receive(c, "/amq/queue/v1-missing", 1);
    await assert.rejects(missing.messages, (e: { condition?: string }) => e.condition === "amqp:not-found");
    const bound = receive(c, "/exchange/amq.topic/v1.key", 2, { autoaccept: true });
    await new Promise<void>((resolve) => bound.receiver.once("receiver_open", () => resolve()));
    await sendAll(await openSender(c, "/topic/v1.key"), [{ body: data("t1") }]);
    await sendAll(await openSender(c, "/exchange/amq.topic/v1.key"), [{ body: data("t2") }]);
    assert.deepEqual((await bound.messages).map((r) => bodyOf(r.message).toString()), ["t1", "t2"]);
    await close(c);
    await eventually(() => ![...broker.broker.vhost("/").queues.keys()].some((n) => n.startsWith("amq.gen")), 5000, "the link's own queue deleted");
  });

  it("permissions as AMQP 0-9-1: write refused → amqp:unauthorized-access on attach; read on a permitted queue works", async () => {
    declare("readable");
    declare("unreadable");
    const c = await connect(broker.amqpPort, { username: "reader", password: "pw" });
    await assert.rejects(openSender(c, "/queues/readable"), (e: { condition?: string }) => e.condition === "amqp:unauthorized-access");
    const refused = receive(c, "/queues/unreadable", 1);
    await assert.rejects(refused.messages, (e: { condition?: string }) => e.condition === "amqp:unauthorized-access");
    const g = await connect(broker.amqpPort);
    await sendAll(await openSender(g, "/queues/readable"), [{ body: data("ok") }]);
    const { messages } = receive(c, "/queues/readable", 1, { autoaccept: true });
    assert.equal(bodyOf((await messages)[0]!.message).toString(), "ok");
    await close(c);
    await close(g);
  });

  it("a link on a missing queue or exchange is detached with amqp:not-found; the session and connection go on", async () => {
    const c = await connect(broker.amqpPort);
    await assert.rejects(openSender(c, "/queues/nope"), (e: { condition?: string }) => e.condition === "amqp:not-found");
    await assert.rejects(openSender(c, "/exchanges/nope/k"), (e: { condition?: string }) => e.condition === "amqp:not-found");
    await assert.rejects(openSender(c, "/bogus/address"), (e: { condition?: string }) => e.condition === "amqp:invalid-field");
    declare("still-fine");
    assert.equal((await sendAll(await openSender(c, "/queues/still-fine"), [{ body: data("x") }]))[0]!.outcome, "accepted");
    await close(c);
  });

  it("converts 1.0 → 0-9-1 as RabbitMQ 4: header, properties, application-properties → headers, x- annotations → headers, data → body", async () => {
    declare("to-091");
    const c = await connect(broker.amqpPort);
    const s = await openSender(c, "/queues/to-091");
    await sendAll(s, [
      {
        body: data("payload"),
        durable: true,
        priority: 7,
        ttl: 60000,
        message_id: "m-1",
        correlation_id: "c-1",
        reply_to: "/queues/replies",
        content_type: "text/plain",
        content_encoding: "utf-8",
        creation_time: new Date(1_700_000_000_000),
        group_id: "app-1",
        application_properties: { color: "red", n: 42 },
        message_annotations: { "x-opt-tenant": "t1" },
      },
    ]);
    await close(c);
    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createChannel();
    const m = await ch.get("to-091", { noAck: true });
    assert.ok(m);
    assert.equal(m.content.toString(), "payload");
    const p = m.properties;
    assert.equal(p.deliveryMode, 2);
    assert.equal(p.priority, 7);
    assert.equal(p.expiration, "60000");
    assert.equal(p.messageId, "m-1");
    assert.equal(p.correlationId, "c-1");
    assert.equal(p.replyTo, "replies");
    assert.equal(p.contentType, "text/plain");
    assert.equal(p.contentEncoding, "utf-8");
    assert.equal(p.timestamp, 1_700_000_000);
    assert.equal(p.appId, "app-1");
    assert.equal(p.headers?.["color"], "red");
    assert.equal(p.headers?.["n"], 42);
    assert.equal(p.headers?.["x-opt-tenant"], "t1");
    await conn.close();
  });

  it("converts 0-9-1 → 1.0 as RabbitMQ 4: delivery mode → durable, headers → application-properties, x- headers → annotations, type → x-basic-type", async () => {
    declare("from-091");
    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createConfirmChannel();
    ch.sendToQueue("from-091", Buffer.from("hello"), { persistent: true, priority: 3, expiration: "5000", messageId: "id-9", correlationId: "corr", replyTo: "back", contentType: "application/json", type: "greeting", appId: "app", timestamp: 1_700_000_001, headers: { k: "v", num: 5, "x-custom": "xc" } });
    await ch.waitForConfirms();
    await conn.close();
    const c = await connect(broker.amqpPort);
    const { messages } = receive(c, "/queues/from-091", 1, { autoaccept: true });
    const m = (await messages)[0]!.message;
    assert.equal(bodyOf(m).toString(), "hello");
    assert.equal(m.durable, true);
    assert.equal(m.priority, 3);
    assert.equal(m.ttl, 5000);
    assert.equal(m.message_id, "id-9");
    assert.equal(m.correlation_id, "corr");
    assert.equal(m.reply_to, "/queues/back");
    assert.equal(m.content_type, "application/json");
    assert.equal(m.group_id, "app");
    assert.equal((m.creation_time as Date).getTime(), 1_700_000_001_000);
    assert.deepEqual(m.application_properties, { k: "v", num: 5 });
    assert.equal(m.message_annotations?.["x-custom"], "xc");
    assert.equal(m.message_annotations?.["x-basic-type"], "greeting");
    assert.equal(m.message_annotations?.["x-routing-key"], "from-091");
    await close(c);
  });

  it("MQTT and AMQP 1.0 exchange messages through amq.topic", async () => {
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${broker.mqttPort}`, { username: "guest", password: "guest", protocolVersion: 4 });
    const got = new Promise<string>((resolve) => client.on("message", (_t, payload) => resolve(payload.toString())));
    await client.subscribeAsync("sensors/room1", { qos: 1 });
    const c = await connect(broker.amqpPort);
    await sendAll(await openSender(c, "/exchanges/amq.topic/sensors.room1"), [{ body: data("21.5") }]);
    assert.equal(await withTimeout(got, 5000, "the MQTT message"), "21.5");
    const r = receive(c, "/exchange/amq.topic/sensors.room2", 1, { autoaccept: true });
    await new Promise<void>((resolve) => r.receiver.once("receiver_open", () => resolve()));
    await client.publishAsync("sensors/room2", "22.0", { qos: 1 });
    assert.equal(bodyOf((await r.messages)[0]!.message).toString(), "22.0");
    await client.endAsync();
    await close(c);
  });

  it("lists the connection in /api/connections with protocol 'AMQP 1-0' and its session's consumer", async () => {
    declare("listed");
    const c = await connect(broker.amqpPort, { container_id: "my-container" });
    const r = receive(c, "/queues/listed", 0);
    await r.messages;
    const auth = "Basic " + Buffer.from("guest:guest").toString("base64");
    await eventually(async () => {
      const res = await fetch(`${broker.httpUrl}/api/connections`, { headers: { authorization: auth } });
      const list = (await res.json()) as Array<{ protocol: string; user: string; client_properties: Record<string, unknown> }>;
      return list.some((x) => x.protocol === "AMQP 1-0" && x.user === "guest" && x.client_properties["container_id"] === "my-container");
    }, 5000, "the connection listed");
    const res = await fetch(`${broker.httpUrl}/api/consumers`, { headers: { authorization: auth } });
    const consumers = (await res.json()) as Array<{ queue: { name: string } }>;
    assert.ok(consumers.some((x) => x.queue.name === "listed"));
    await close(c);
  });

  it("detaches a link whose queue is deleted with amqp:resource-deleted", async () => {
    declare("doomed");
    const c = await connect(broker.amqpPort);
    const r = receive(c, "/queues/doomed", 1);
    await new Promise<void>((resolve) => r.receiver.once("receiver_open", () => resolve()));
    const err = linkError(r.receiver);
    r.messages.catch(() => undefined);
    broker.broker.deleteQueue(ctx, "/", "doomed", { ifUnused: false, ifEmpty: false });
    assert.equal((await err).condition, "amqp:resource-deleted");
    await close(c);
  });
  it("bodies received as slices of the socket's reads stay intact after the AMQP 1.0 connection closes and other connections read", async () => {
    declare("slices-q");
    declare("churn-q");
    const bodies = Array.from({ length: 40 }, (_, i) => Buffer.alloc(4096, i + 1));
    const c = await connect(broker.amqpPort);
    assert.ok((await sendAll(await openSender(c, "/queues/slices-q"), bodies.map((b) => ({ body: data(b) })))).every((o) => o.outcome === "accepted"));
    // The test suite poisons read slabs that go back to the pool (CONEY_POISON_READS): a slab
    // returned while a body still pointed into it would show 0xdb below.
    await close(c);
    const conn = await amqp.connect(`amqp://guest:guest@127.0.0.1:${broker.amqpPort}`);
    const ch = await conn.createConfirmChannel();
    for (let i = 0; i < 20; i++) ch.sendToQueue("churn-q", Buffer.alloc(65536, 0x55));
    await ch.waitForConfirms();
    await ch.purgeQueue("churn-q");
    const got: Buffer[] = [];
    for (let i = 0; i < bodies.length; i++) {
      const m = await ch.get("slices-q", { noAck: true });
      assert.ok(m !== false, `message ${i}`);
      got.push(m.content);
    }
    assert.ok(got.every((b, i) => b.equals(bodies[i]!)), "every body as sent");
    await conn.close();
  });
});
