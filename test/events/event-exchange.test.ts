// amq.rabbitmq.event (RabbitMQ's rabbitmq_event_exchange): every event a real AMQP consumer
// receives when it is bound to the exchange, with RabbitMQ's routing keys and headers, for
// changes made over AMQP, the management API and a failed login; and no event is even built
// while nothing is bound.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type Channel, type ChannelModel } from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { EventLog } from "./event-log.js";

describe("amq.rabbitmq.event", () => {
  let broker: TestBroker;
  let conn: ChannelModel;
  let ch: Channel;
  let events: EventLog;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    broker = await startTestBroker();
    conn = await amqp.connect(broker.amqpUrl);
    ch = await conn.createChannel();
    events = await EventLog.bind(ch);
  });
  after(async () => {
    await conn.close();
    await broker.close();
  });

  it("is a durable internal topic exchange in the default vhost, listed like any other, and refuses publishes", async () => {
    const r = await api("GET", "/api/exchanges/%2F/amq.rabbitmq.event");
    assert.equal(r.status, 200);
    assert.deepEqual({ type: r.json.type, durable: r.json.durable, internal: r.json.internal, auto_delete: r.json.auto_delete }, { type: "topic", durable: true, internal: true, auto_delete: false });
    const list = await api("GET", "/api/exchanges/%2F");
    assert.ok(list.json.some((x: { name: string }) => x.name === "amq.rabbitmq.event"));
    // Only in the configured vhost, as RabbitMQ declares it.
    await api("PUT", "/api/vhosts/other");
    assert.equal((await api("GET", "/api/exchanges/other/amq.rabbitmq.event")).status, 404);
    const pub = await conn.createChannel();
    const closed = new Promise<Error>((resolve) => pub.on("error", resolve));
    pub.publish("amq.rabbitmq.event", "x", Buffer.from("no"));
    assert.match((await closed).message, /403.*cannot publish to internal exchange 'amq.rabbitmq.event'/);
  });

  it("queue, exchange and binding events over AMQP, with RabbitMQ's headers and properties", async () => {
    const other = await conn.createChannel();
    await other.assertExchange("ev-x", "fanout", { durable: false });
    await other.assertQueue("ev-q", { durable: false, arguments: { "x-max-length": 5 } });
    await other.bindQueue("ev-q", "ev-x", "k1");
    await other.unbindQueue("ev-q", "ev-x", "k1");
    await other.deleteQueue("ev-q");
    await other.deleteExchange("ev-x");
    const xc = await events.next("exchange.created", { name: "ev-x" });
    assert.equal(xc.headers["vhost"], "/");
    assert.equal(xc.headers["type"], "fanout");
    assert.equal(xc.headers["durable"], false);
    assert.equal(xc.headers["user_who_performed_action"], "guest");
    const qc = await events.next("queue.created", { name: "ev-q" });
    assert.deepEqual(qc.headers["arguments"], { "x-max-length": 5 });
    assert.equal(qc.headers["auto_delete"], false);
    const bc = await events.next("binding.created", { destination_name: "ev-q" });
    assert.deepEqual([bc.headers["source_name"], bc.headers["destination_kind"], bc.headers["routing_key"]], ["ev-x", "queue", "k1"]);
    await events.next("binding.deleted", { destination_name: "ev-q", routing_key: "k1" });
    await events.next("queue.deleted", { name: "ev-q" });
    await events.next("exchange.deleted", { name: "ev-x" });
    // Properties as RabbitMQ sets them: persistent, a timestamp in seconds, headers carry the ms, empty body.
    const p = xc.message.properties;
    assert.equal(p.deliveryMode, 2);
    assert.equal(xc.message.content.length, 0);
    const ms = Number(xc.headers["timestamp_in_ms"]);
    assert.ok(Math.abs(ms - Date.now()) < 60_000, `timestamp_in_ms ${ms}`);
    assert.equal(p.timestamp, Math.floor(ms / 1000));
    await other.close();
  });

  it("user, permission, topic permission and vhost events over the management API", async () => {
    assert.equal((await api("PUT", "/api/users/eve", { password: "pw1", tags: "monitoring" })).status, 201);
    await api("PUT", "/api/users/eve", { password: "pw2", tags: "monitoring" });
    await api("PUT", "/api/users/eve", { tags: "management" });
    await api("PUT", "/api/vhosts/ev-vh");
    await api("PUT", "/api/permissions/ev-vh/eve", { configure: "^c", write: "^w", read: "^r" });
    await api("PUT", "/api/topic-permissions/ev-vh/eve", { exchange: "amq.topic", write: "^a", read: "^b" });
    await api("DELETE", "/api/topic-permissions/ev-vh/eve");
    await api("DELETE", "/api/permissions/ev-vh/eve");
    await api("DELETE", "/api/users/eve");
    await api("DELETE", "/api/vhosts/ev-vh");
    await events.next("user.created", { name: "eve", user_who_performed_action: "guest" });
    await events.next("user.tags.set", { name: "eve" });
    await events.next("user.password.changed", { name: "eve" });
    const tags = await events.next("user.tags.set", { name: "eve" });
    assert.deepEqual(tags.headers["tags"], ["management"]);
    await events.next("vhost.created", { name: "ev-vh" });
    const pc = await events.next("permission.created", { user: "eve", vhost: "ev-vh" });
    assert.deepEqual([pc.headers["configure"], pc.headers["write"], pc.headers["read"]], ["^c", "^w", "^r"]);
    const tc = await events.next("topic.permission.created", { user: "eve", vhost: "ev-vh" });
    assert.deepEqual([tc.headers["exchange"], tc.headers["write"], tc.headers["read"]], ["amq.topic", "^a", "^b"]);
    await events.next("topic.permission.deleted", { user: "eve", vhost: "ev-vh" });
    await events.next("permission.deleted", { user: "eve", vhost: "ev-vh" });
    await events.next("user.deleted", { name: "eve" });
    await events.next("vhost.deleted", { name: "ev-vh" });
  });

  it("policy and parameter events", async () => {
    await api("PUT", "/api/policies/%2F/ev-pol", { pattern: "^ev", definition: { "max-length": 3 }, "apply-to": "queues" });
    await api("DELETE", "/api/policies/%2F/ev-pol");
    await api("PUT", "/api/global-parameters/ev-param", { value: { a: 1 } });
    await api("DELETE", "/api/global-parameters/ev-param");
    await api("PUT", "/api/vhost-limits/%2F/max-queues", { value: 100 });
    await api("DELETE", "/api/vhost-limits/%2F/max-queues");
    const ps = await events.next("policy.set", { name: "ev-pol", vhost: "/" });
    assert.deepEqual([ps.headers["pattern"], ps.headers["apply-to"], ps.headers["definition"]], ["^ev", "queues", { "max-length": 3 }]);
    await events.next("policy.cleared", { name: "ev-pol", vhost: "/" });
    const gp = await events.next("parameter.set", { name: "ev-param", component: "global" });
    assert.deepEqual(gp.headers["value"], { a: 1 });
    await events.next("parameter.cleared", { name: "ev-param" });
    await events.next("parameter.set", { component: "vhost-limits", vhost: "/" });
    await events.next("parameter.cleared", { component: "vhost-limits", vhost: "/" });
  });

  it("connection, channel, consumer and login events", async () => {
    const c2 = await amqp.connect(broker.amqpUrl, { clientProperties: { connection_name: "ev-client" } });
    const ch2 = await c2.createChannel();
    await ch2.assertQueue("ev-cq", { exclusive: true });
    const { consumerTag } = await ch2.consume("ev-cq", () => {}, { noAck: false });
    await ch2.cancel(consumerTag);
    await ch2.close();
    await c2.close();
    await assert.rejects(amqp.connect(broker.urlFor("guest", "wrong-password")));
    const cc = await events.next("connection.created", { user: "guest" });
    assert.equal(cc.headers["vhost"], "/");
    assert.equal(cc.headers["peer_host"], "127.0.0.1");
    assert.equal((cc.headers["client_properties"] as Record<string, unknown>)["connection_name"], "ev-client");
    const name = String(cc.headers["name"]);
    const chc = await events.next("channel.created", { connection: name });
    assert.equal(chc.headers["number"], 1);
    const con = await events.next("consumer.created", { consumer_tag: consumerTag, queue: "ev-cq" });
    assert.equal(con.headers["ack_required"], true);
    assert.equal(con.headers["channel"], `${name} (1)`);
    await events.next("consumer.deleted", { consumer_tag: consumerTag });
    await events.next("channel.closed", { connection: name });
    await events.next("connection.closed", { name });
    await events.next("user.authentication.success", { name: "guest", protocol: "amqp091" });
    await events.next("user.authentication.failure", { name: "guest", protocol: "amqp091" });
  });

  it("builds no connection, channel or consumer event while nothing is bound", async () => {
    const b = broker.broker;
    assert.equal(b.events.detailWanted, true);
    await ch.deleteQueue(events.queue);
    await eventually(() => !b.events.detailWanted, 5000, "runtime events no longer wanted");
    const x = b.vhost("/").exchanges.get("amq.rabbitmq.event")!;
    assert.equal(x.bindings.size, 0);
    const again = await EventLog.bind(ch, ["queue.#"]);
    assert.equal(b.events.detailWanted, true);
    await ch.assertQueue("ev-after", { exclusive: true });
    await again.next("queue.created", { name: "ev-after" });
  });
});
