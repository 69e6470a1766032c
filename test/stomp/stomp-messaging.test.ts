// STOMP messaging over TCP with amqplib on the other side: RabbitMQ's destinations (/queue,
// /amq/queue, /topic, /exchange, /temp-queue reply-to), the header ↔ AMQP property mapping,
// content-length bodies with NULs, header escaping per version, and receipts.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { GetMessage } from "amqplib";
import { useStompBroker } from "./stomp-fixture.js";
import { eventually } from "../helpers/wait.js";

describe("STOMP messaging", () => {
  const fx = useStompBroker();
  /** The next message on `queue`, by basic.get (no consumer left behind to take the one after). */
  const nextAmqp = async (queue: string): Promise<GetMessage> => {
    let got: GetMessage | false = false;
    await eventually(async () => (got = await fx.ch.get(queue, { noAck: true })) !== false, 5000, `a message on ${queue}`);
    return got as unknown as GetMessage;
  };


  it("SEND to /queue/q declares a durable queue and maps headers onto AMQP properties and headers", async () => {
    const w = await fx.login();
    w.send("SEND", { destination: "/queue/orders", "content-type": "application/json", persistent: "true", "correlation-id": "c-1", priority: "3", "amqp-message-id": "m-1", "x-custom": "v1", receipt: "r1" }, '{"n":1}');
    const r = await w.next();
    assert.equal(r.command, "RECEIPT");
    assert.equal(r.headers["receipt-id"], "r1");
    const q = await fx.ch.checkQueue("orders");
    assert.equal(q.messageCount, 1);
    const m = await nextAmqp("orders");
    assert.equal(m.content.toString(), '{"n":1}');
    assert.equal(m.properties.contentType, "application/json");
    assert.equal(m.properties.deliveryMode, 2);
    assert.equal(m.properties.correlationId, "c-1");
    assert.equal(m.properties.priority, 3);
    assert.equal(m.properties.messageId, "m-1");
    assert.equal(m.properties.headers?.["x-custom"], "v1");
    assert.equal(m.fields.exchange, "");
    assert.equal(m.fields.routingKey, "orders");
  });

  it("delivers AMQP messages to a /queue subscriber with RabbitMQ's MESSAGE headers and a body with NULs", async () => {
    const w = await fx.login();
    w.send("SUBSCRIBE", { id: "s1", destination: "/queue/inbox", receipt: "sub" });
    assert.equal((await w.next()).headers["receipt-id"], "sub");
    const body = Buffer.from([1, 0, 2, 0, 3]);
    fx.ch.sendToQueue("inbox", body, { headers: { app: "x:y", n: 7 }, contentType: "application/octet-stream", replyTo: "back", type: "t1", appId: "svc" });
    const f = await w.nextOf("MESSAGE");
    assert.equal(f.headers["subscription"], "s1");
    assert.equal(f.headers["destination"], "/queue/inbox");
    assert.equal(f.headers["redelivered"], "false");
    assert.ok(f.headers["message-id"]!.startsWith("T_s1@@session-"));
    assert.equal(f.headers["ack"], undefined, "auto ack: no ack header");
    assert.equal(f.headers["app"], "x\\cy", "1.2 escapes the colon");
    assert.equal(f.headers["n"], "7");
    assert.equal(f.headers["reply-to"], "back");
    assert.equal(f.headers["type"], "t1");
    assert.equal(f.headers["app-id"], "svc");
    assert.equal(f.headers["content-type"], "application/octet-stream");
    assert.equal(f.headers["content-length"], "5");
    assert.deepEqual(f.body, body);
  });

  it("SEND with content-length carries NULs in the body, and decodes escaped headers per version", async () => {
    const w = await fx.login();
    const body = Buffer.from([0, 65, 0, 66]);
    w.send("SEND", { destination: "/queue/nul", "content-length": "4", "k\\cey": "a\\nb\\\\c", receipt: "r" }, body);
    await w.nextOf("RECEIPT");
    const m = await nextAmqp("nul");
    assert.deepEqual(m.content, body);
    assert.equal(m.properties.headers?.["k:ey"], "a\nb\\c");
    // STOMP 1.0 does not escape: the backslashes are the value.
    const old = await fx.login({ "accept-version": "1.0" });
    old.send("SEND", { destination: "/queue/nul", raw: "a\\cb", receipt: "r" }, "x");
    await old.nextOf("RECEIPT");
    assert.equal((await nextAmqp("nul")).properties.headers?.["raw"], "a\\cb");
  });

  it("/topic subscriptions get a queue of their own bound to amq.topic; /exchange/x/key binds to x", async () => {
    const w = await fx.login();
    w.send("SUBSCRIBE", { id: "t", destination: "/topic/sensors.*", receipt: "a" });
    w.send("SUBSCRIBE", { id: "d", destination: "/exchange/amq.direct/key1", receipt: "b" });
    await w.nextOf("RECEIPT");
    await w.nextOf("RECEIPT");
    fx.ch.publish("amq.topic", "sensors.t1", Buffer.from("temp"));
    const t = await w.nextOf("MESSAGE");
    assert.equal(t.headers["destination"], "/topic/sensors.t1");
    assert.equal(t.headers["subscription"], "t");
    fx.ch.publish("amq.direct", "key1", Buffer.from("direct"));
    const d = await w.nextOf("MESSAGE");
    assert.equal(d.headers["destination"], "/exchange/amq.direct/key1");
    assert.equal(d.body.toString(), "direct");
    // A STOMP publisher to /topic reaches an AMQP queue bound to amq.topic.
    const q = await fx.ch.assertQueue("", { exclusive: true });
    await fx.ch.bindQueue(q.queue, "amq.topic", "alerts.#");
    w.send("SEND", { destination: "/topic/alerts.fire" }, "hot");
    const m = await nextAmqp(q.queue);
    assert.equal(m.fields.routingKey, "alerts.fire");
    assert.equal(m.content.toString(), "hot");
  });

  it("/amq/queue/q needs the queue to exist: not_found otherwise, as RabbitMQ", async () => {
    await fx.ch.assertQueue("existing", { durable: false });
    const w = await fx.login();
    w.send("SEND", { destination: "/amq/queue/existing", receipt: "r" }, "1");
    await w.nextOf("RECEIPT");
    assert.equal((await fx.ch.checkQueue("existing")).messageCount, 1);
    w.send("SUBSCRIBE", { id: "x", destination: "/amq/queue/missing" });
    const e = await w.next();
    assert.equal(e.command, "ERROR");
    assert.equal(e.headers["message"], "not_found");
    assert.equal(e.body.toString(), "NOT_FOUND - no queue 'missing' in vhost '/'");
    await w.whenClosed();
  });

  it("SUBSCRIBE passes x- headers as queue arguments (x-max-length, x-queue-type)", async () => {
    const w = await fx.login();
    w.send("SUBSCRIBE", { id: "a", destination: "/queue/limited", "x-max-length": "2", "x-queue-type": "classic", receipt: "r" });
    await w.nextOf("RECEIPT");
    const q = fx.broker.broker.vhosts.get("/")!.queues.get("limited")!;
    assert.equal(q.arguments["x-max-length"], 2);
    assert.equal(q.arguments["x-queue-type"], "classic");
  });

  it("reply-to /temp-queue/… reaches the sender: the AMQP service answers the /reply-queue/ it is given", async () => {
    await fx.ch.assertQueue("service", { durable: false });
    const w = await fx.login();
    w.send("SEND", { destination: "/amq/queue/service", "reply-to": "/temp-queue/answers" }, "ping");
    const req = await nextAmqp("service");
    const replyTo = req.properties.replyTo as string;
    assert.ok(replyTo.startsWith("/reply-queue/amq.gen-"), replyTo);
    fx.ch.sendToQueue(replyTo.slice("/reply-queue/".length), Buffer.from("pong"));
    const f = await w.nextOf("MESSAGE");
    assert.equal(f.headers["subscription"], "/temp-queue/answers");
    assert.equal(f.body.toString(), "pong");
  });

  it("refuses an unknown destination and a SEND without one with RabbitMQ's texts", async () => {
    const w = await fx.login();
    w.send("SEND", { destination: "/bad/x" }, "1");
    const e = await w.next();
    assert.equal(e.headers["message"], "Unknown destination");
    assert.ok(e.body.toString().startsWith("'/bad/x' is not a valid destination."));
    await w.whenClosed();
    const w2 = await fx.login();
    w2.send("SEND", {}, "1");
    const e2 = await w2.next();
    assert.equal(e2.headers["message"], "Invalid header");
    assert.equal(e2.body.toString(), '"SEND" must include a valid "destination" header\n');
  });
});
