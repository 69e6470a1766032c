// AMQP 1.0 on the AMQP port with rhea against a real broker: SASL, the vhost from open's
// hostname, v2 addresses (/queues, /exchanges, a null target with `to`), link credit, pre-settled
// and unsettled deliveries, and the four outcomes with RabbitMQ 4's meanings.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { bodyOf, close, connect, data, openSender, receive, refusedWith, sendAll } from "../helpers/rhea-client.js";
import { eventually } from "../helpers/wait.js";
import type { ClientContext } from "../../src/broker/index.js";

describe("AMQP 1.0 messaging", () => {
  let broker: TestBroker;
  let ctx: ClientContext;
  const declare = (name: string, args: Record<string, string | number> = {}, vhost = "/"): void => {
    broker.broker.declareQueue(ctx, vhost, { name, durable: true, autoDelete: false, exclusiveOwner: null, arguments: args }, false);
  };
  const count = (name: string, vhost = "/"): number => broker.broker.vhost(vhost).queues.get(name)!.messageCount;

  before(async () => {
    broker = await startTestBroker();
    ctx = { permissions: broker.broker.checkerFor("guest"), owner: null };
    broker.broker.putVhost("devices", {});
    broker.broker.setPermission("guest", "devices", { configure: ".*", write: ".*", read: ".*" });
  });
  after(async () => {
    await broker.close();
  });

  it("logs in with SASL PLAIN, refuses a wrong password, and lets a loopback client in with ANONYMOUS (as guest)", async () => {
    const c = await connect(broker.amqpPort);
    const record = broker.broker.connections.list().find((x) => x.info().protocol === "AMQP 1-0");
    assert.ok(record, "registered as AMQP 1-0");
    assert.equal(record.info().user, "guest");
    assert.equal(record.info().authMechanism, "PLAIN");
    await close(c);
    await assert.rejects(connect(broker.amqpPort, { password: "wrong" }));
    // rhea offers ANONYMOUS when given a user name without a password.
    const anon = await connect(broker.amqpPort, { username: "anyone", password: undefined });
    const a = broker.broker.connections.list().find((x) => x.info().authMechanism === "ANONYMOUS");
    assert.equal(a?.info().user, "guest");
    await close(anon);
    await eventually(() => broker.broker.connections.list().length === 0, 5000, "connections gone");
  });

  it("takes the vhost from open's hostname 'vhost:NAME', else the default vhost; refuses an unknown vhost", async () => {
    declare("in-devices", {}, "devices");
    const c = await connect(broker.amqpPort, { hostname: "vhost:devices" });
    const s = await openSender(c, "/queues/in-devices");
    assert.deepEqual((await sendAll(s, [{ body: data("x") }])).map((o) => o.outcome), ["accepted"]);
    assert.equal(count("in-devices", "devices"), 1);
    await close(c);
    const d = await connect(broker.amqpPort, { hostname: "localhost" });
    assert.equal(broker.broker.connections.list().find((x) => x.info().protocol === "AMQP 1-0")?.info().vhost, "/");
    await close(d);
    assert.equal((await refusedWith(broker.amqpPort, { hostname: "vhost:nowhere" })).condition, "amqp:unauthorized-access");
  });

  it("sends to /queues/:queue and receives with credit; accepted messages leave the queue", async () => {
    declare("v2-q");
    const c = await connect(broker.amqpPort);
    const s = await openSender(c, "/queues/v2-q");
    const outcomes = await sendAll(s, Array.from({ length: 20 }, (_, i) => ({ body: data(`m${i}`) })));
    assert.ok(outcomes.every((o) => o.outcome === "accepted"));
    assert.equal(count("v2-q"), 20);
    const { messages } = receive(c, "/queues/v2-q", 20, { credit_window: 5 });
    const got = await messages;
    assert.deepEqual(got.map((r) => bodyOf(r.message).toString()), Array.from({ length: 20 }, (_, i) => `m${i}`));
    for (const r of got) r.delivery.accept();
    await eventually(() => count("v2-q") === 0 && broker.broker.vhost("/").queues.get("v2-q")!.unacked === 0, 5000, "acks");
    await close(c);
  });

  it("delivers at most the granted credit and no more until the receiver adds credit", async () => {
    declare("credit-q");
    const c = await connect(broker.amqpPort);
    await sendAll(await openSender(c, "/queues/credit-q"), Array.from({ length: 10 }, (_, i) => ({ body: data(`c${i}`) })));
    const { receiver, messages } = receive(c, "/queues/credit-q", 3, { credit_window: 0 });
    receiver.add_credit(3);
    const got = await messages;
    assert.equal(got.length, 3);
    // Three delivered and unsettled; seven still ready (no delivery beyond the credit).
    await eventually(() => broker.broker.vhost("/").queues.get("credit-q")!.unacked === 3, 5000, "3 unacked");
    assert.equal(count("credit-q"), 7);
    await close(c);
  });

  it("pre-settled deliveries (snd-settle-mode settled) need no disposition; pre-settled sends are stored", async () => {
    declare("settled-q");
    const c = await connect(broker.amqpPort);
    const s = await openSender(c, "/queues/settled-q", { snd_settle_mode: 1 });
    for (let i = 0; i < 5; i++) s.send({ body: data(`s${i}`) });
    await eventually(() => count("settled-q") === 5, 5000, "5 stored");
    const { messages } = receive(c, "/queues/settled-q", 5, { snd_settle_mode: 1, autoaccept: false });
    const got = await messages;
    assert.ok(got.every((r) => r.delivery.remote_settled));
    await eventually(() => count("settled-q") === 0 && broker.broker.vhost("/").queues.get("settled-q")!.unacked === 0, 5000, "gone");
    await close(c);
  });

  it("outcomes: released requeues, rejected dead-letters, modified undeliverable-here dead-letters, modified delivery-failed requeues", async () => {
    declare("dlq");
    declare("outcome-q", { "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "dlq" });
    const c = await connect(broker.amqpPort);
    await sendAll(await openSender(c, "/queues/outcome-q"), ["released", "rejected", "undeliverable", "failed"].map((t) => ({ body: data(t) })));
    const { receiver, messages } = receive(c, "/queues/outcome-q", 4, { credit_window: 0 });
    receiver.add_credit(4);
    const got = await messages;
    const q = broker.broker.vhost("/").queues.get("outcome-q")!;
    // One at a time: rhea merges dispositions of neighbouring deliveries sent in one turn.
    got[0]!.delivery.release();
    await eventually(() => count("outcome-q") === 1, 5000, "released is back");
    got[1]!.delivery.reject({ condition: "app:bad", description: "no" });
    await eventually(() => count("dlq") === 1, 5000, "rejected dead-lettered");
    got[2]!.delivery.modified({ undeliverable_here: true });
    await eventually(() => count("dlq") === 2, 5000, "undeliverable-here dead-lettered");
    got[3]!.delivery.modified({ delivery_failed: true });
    await eventually(() => count("outcome-q") === 2 && q.unacked === 0, 5000, "2 back in the queue");
    receiver.close();
    const { messages: again } = receive(c, "/queues/outcome-q", 2);
    assert.deepEqual((await again).map((r) => bodyOf(r.message).toString()).sort(), ["failed", "released"]);
    const { messages: dead } = receive(c, "/queues/dlq", 2);
    assert.deepEqual((await dead).map((r) => bodyOf(r.message).toString()).sort(), ["rejected", "undeliverable"]);
    await close(c);
  });

  it("unsettled deliveries go back to the queue when the link detaches or the connection closes", async () => {
    declare("requeue-q");
    const c = await connect(broker.amqpPort);
    await sendAll(await openSender(c, "/queues/requeue-q"), [{ body: data("a") }, { body: data("b") }]);
    const { messages } = receive(c, "/queues/requeue-q", 2);
    await messages;
    assert.equal(count("requeue-q"), 0);
    await close(c);
    await eventually(() => count("requeue-q") === 2, 5000, "requeued");
  });

  it("routes through /exchanges/:x/:key, /exchanges/:x with the subject as key, and a null target with each message's `to`", async () => {
    declare("routed-a");
    declare("routed-b");
    broker.broker.bindQueue(ctx, "/", "routed-a", "amq.direct", "ka", {});
    broker.broker.bindQueue(ctx, "/", "routed-b", "amq.topic", "sensors.#", {});
    const c = await connect(broker.amqpPort);
    assert.equal((await sendAll(await openSender(c, "/exchanges/amq.direct/ka"), [{ body: data("1") }]))[0]!.outcome, "accepted");
    assert.equal((await sendAll(await openSender(c, "/exchanges/amq.topic"), [{ body: data("2"), subject: "sensors.t1" }]))[0]!.outcome, "accepted");
    const anon = await openSender(c, null);
    const outs = await sendAll(anon, [
      { body: data("3"), to: "/queues/routed-a" },
      { body: data("4"), to: "/exchanges/amq.topic/sensors.x" },
      { body: data("5"), to: "/queues/no-such-queue" },
      { body: data("6") },
    ]);
    assert.deepEqual(outs.map((o) => o.outcome), ["accepted", "accepted", "released", "rejected"]);
    assert.equal(count("routed-a"), 2);
    assert.equal(count("routed-b"), 2);
    // Unroutable through a fixed exchange target: released (RabbitMQ 4).
    assert.equal((await sendAll(await openSender(c, "/exchanges/amq.direct/nobody"), [{ body: data("u") }]))[0]!.outcome, "released");
    await close(c);
  });

  it("carries messages larger than the frame size in several transfer frames, both ways", async () => {
    declare("large-q");
    const c = await connect(broker.amqpPort, { max_frame_size: 4096 });
    const body = Buffer.alloc(300_000);
    for (let i = 0; i < body.length; i++) body[i] = (i * 31) & 0xff;
    assert.equal((await sendAll(await openSender(c, "/queues/large-q"), [{ body: data(body) }]))[0]!.outcome, "accepted");
    const { messages } = receive(c, "/queues/large-q", 1);
    const [r] = await messages;
    assert.ok(bodyOf(r!.message).equals(body));
    r!.delivery.accept();
    await close(c);
  });
});
