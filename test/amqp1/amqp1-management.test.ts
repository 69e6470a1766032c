// RabbitMQ 4's HTTP-over-AMQP management node (`/management`): rhea sends the requests as
// RabbitMQ's AMQP 1.0 client libraries do (test/helpers/amqp1-management.ts); amqplib on the
// other side sees what they declared, bound, purged and deleted. Status codes, bodies and the
// session's end on a missing permission as RabbitMQ 4 (rabbit_amqp_management).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { close, connect, linkError, rhea } from "../helpers/rhea-client.js";
import { openManagement, quote, type ManagementClient } from "../helpers/amqp1-management.js";
import { eventually } from "../helpers/wait.js";
import type { Connection } from "rhea";

type Info = Record<string, unknown>;

describe("AMQP 1.0 /management node", () => {
  let broker: TestBroker;
  let rc: Connection;
  let m: ManagementClient;
  let ch: amqp.Channel;
  let ac: amqp.ChannelModel;

  before(async () => {
    broker = await startTestBroker();
    rc = await connect(broker.amqpPort);
    m = await openManagement(rc);
    ac = await amqp.connect(broker.amqpUrl);
    ch = await ac.createChannel();
  });
  after(async () => {
    await ac.close();
    await close(rc);
    await broker.close();
  });

  it("PUT /queues/:q declares (201, the queue's info), redeclares (200), and a different declaration is a 409", async () => {
    const created = await m.request("PUT", "/queues/orders", { durable: true, exclusive: false, auto_delete: false, arguments: { "x-queue-type": "quorum", "x-max-length": 10 } });
    assert.equal(created.status, "201");
    const info = created.body as Info;
    assert.equal(info["name"], "orders");
    assert.equal(info["vhost"], "/");
    assert.equal(info["type"], "quorum");
    assert.equal(info["durable"], true);
    assert.equal(info["exclusive"], false);
    assert.equal(info["auto_delete"], false);
    assert.equal(Number(info["message_count"]), 0);
    assert.equal(Number(info["consumer_count"]), 0);
    assert.deepEqual(info["arguments"], { "x-queue-type": "quorum", "x-max-length": 10 });
    assert.equal(typeof info["leader"], "string");
    assert.deepEqual(info["replicas"], [info["leader"]]);
    // The correlation-id is the request's message-id; the response says it is HTTP over AMQP.
    assert.equal(created.message.application_properties?.["http:response"], "1.1");
    const ok = await ch.checkQueue("orders");
    assert.equal(ok.queue, "orders");

    const again = await m.request("PUT", "/queues/orders", { durable: true, arguments: { "x-queue-type": "quorum", "x-max-length": 10 } });
    assert.equal(again.status, "200");
    const conflict = await m.request("PUT", "/queues/orders", { durable: false });
    assert.equal(conflict.status, "409");
    assert.match(String(conflict.body), /inequivalent arg 'durable'/);
  });

  it("a queue's name is percent-encoded in the path; its defaults are RabbitMQ 4's (durable, classic)", async () => {
    const name = "tasks/ü ?#1";
    const r = await m.request("PUT", `/queues/${quote(name)}`, {});
    assert.equal(r.status, "201");
    assert.equal((r.body as Info)["name"], name);
    assert.equal((r.body as Info)["durable"], true);
    assert.equal((r.body as Info)["type"], "classic");
    assert.equal((await ch.checkQueue(name)).queue, name);
  });

  it("GET /queues/:q gives the counts; DELETE /queues/:q/messages purges; DELETE /queues/:q deletes with the count", async () => {
    assert.equal((await m.request("PUT", "/queues/counted", { durable: false })).status, "201");
    for (const body of ["a", "b", "c"]) ch.sendToQueue("counted", Buffer.from(body));
    await ch.checkQueue("counted"); // a round trip: the three publishes are routed
    const got = await m.request("GET", "/queues/counted");
    assert.equal(got.status, "200");
    assert.equal(Number((got.body as Info)["message_count"]), 3);

    const purged = await m.request("DELETE", "/queues/counted/messages");
    assert.equal(purged.status, "200");
    assert.equal(Number((purged.body as Info)["message_count"]), 3);
    assert.equal((await ch.checkQueue("counted")).messageCount, 0);

    ch.sendToQueue("counted", Buffer.from("d"));
    await ch.checkQueue("counted");
    const deleted = await m.request("DELETE", "/queues/counted");
    assert.equal(deleted.status, "200");
    assert.equal(Number((deleted.body as Info)["message_count"]), 1);
    const missing = await m.request("GET", "/queues/counted");
    assert.equal(missing.status, "404");
    assert.equal(missing.body, "queue 'counted' in vhost '/' not found");
    assert.equal((await m.request("DELETE", "/queues/counted/messages")).status, "404");
    // Deleting what is not there succeeds with a count of 0 (RabbitMQ 4).
    assert.equal(Number(((await m.request("DELETE", "/queues/counted")).body as Info)["message_count"]), 0);
  });

  it("an exclusive queue belongs to the management connection: another connection cannot use it", async () => {
    assert.equal((await m.request("PUT", "/queues/mine", { exclusive: true, durable: false })).status, "201");
    const other = await ac.createChannel();
    const refused = new Promise<Error>((resolve) => other.once("error", resolve));
    other.consume("mine", () => undefined).catch(() => undefined);
    assert.match((await refused).message, /RESOURCE_LOCKED/);
    // It goes with its connection.
    const c = await connect(broker.amqpPort);
    const own = await openManagement(c);
    assert.equal((await own.request("PUT", "/queues/goes-with-it", { exclusive: true, durable: false })).status, "201");
    await close(c);
    await eventually(() => !broker.broker.vhost("/").queues.has("goes-with-it"), 5000, "the exclusive queue deleted with its connection");
  });

  it("PUT and DELETE /exchanges/:x declare (204) and delete; a different type is a 409, amq.* and the default exchange a 403", async () => {
    assert.equal((await m.request("PUT", "/exchanges/events", { type: "topic", durable: true, auto_delete: false, internal: false, arguments: {} })).status, "204");
    await ch.checkExchange("events");
    assert.equal((await m.request("PUT", "/exchanges/events", { type: "topic" })).status, "204");
    const conflict = await m.request("PUT", "/exchanges/events", { type: "fanout" });
    assert.equal(conflict.status, "409");
    assert.equal((await m.request("PUT", "/exchanges/amq.mine", { type: "direct" })).status, "403");
    assert.equal((await m.request("PUT", "/exchanges/", {})).status, "403");
    // An existing amq.* exchange redeclared as it is: fine.
    assert.equal((await m.request("PUT", "/exchanges/amq.direct", { type: "direct" })).status, "204");
    assert.equal((await m.request("DELETE", "/exchanges/amq.direct")).status, "403");
    const badType = await m.request("PUT", "/exchanges/odd", { type: "no-such-type" });
    assert.equal(badType.status, "400");

    assert.equal((await m.request("PUT", "/exchanges/short-lived", { type: "fanout", durable: false })).status, "204");
    assert.equal((await m.request("DELETE", "/exchanges/short-lived")).status, "204");
    const other = await ac.createChannel();
    const gone = new Promise<Error>((resolve) => other.once("error", resolve));
    other.checkExchange("short-lived").catch(() => undefined);
    assert.match((await gone).message, /NOT_FOUND/);
  });

  it("POST /bindings binds a queue; GET /bindings lists it with its location; DELETE on the location unbinds", async () => {
    assert.equal((await m.request("PUT", "/queues/bound-q", { durable: false })).status, "201");
    assert.equal((await m.request("PUT", "/exchanges/bind-x", { type: "topic", durable: false })).status, "204");
    const bound = await m.request("POST", "/bindings", { source: "bind-x", destination_queue: "bound-q", binding_key: "a.*", arguments: {} });
    assert.equal(bound.status, "204");
    ch.publish("bind-x", "a.b", Buffer.from("routed"));
    await ch.checkQueue("bound-q");
    const msg = await ch.get("bound-q", { noAck: true });
    assert.ok(msg);
    assert.equal(msg.content.toString(), "routed");

    const listed = await m.request("GET", `/bindings?src=bind-x&dstq=bound-q&key=${quote("a.*")}`);
    assert.equal(listed.status, "200");
    const list = listed.body as Info[];
    assert.equal(list.length, 1);
    assert.equal(list[0]!["source"], "bind-x");
    assert.equal(list[0]!["destination_queue"], "bound-q");
    assert.equal(list[0]!["binding_key"], "a.*");
    assert.equal(list[0]!["location"], "/bindings/src=bind-x;dstq=bound-q;key=a.%2A;args=");

    assert.equal((await m.request("DELETE", String(list[0]!["location"]))).status, "204");
    assert.deepEqual((await m.request("GET", `/bindings?src=bind-x&dstq=bound-q&key=${quote("a.*")}`)).body, []);
    ch.publish("bind-x", "a.b", Buffer.from("dropped"));
    await ch.checkQueue("bound-q");
    assert.equal((await ch.checkQueue("bound-q")).messageCount, 0);
    // Unbinding what is not bound: 204 as well.
    assert.equal((await m.request("DELETE", "/bindings/src=bind-x;dstq=bound-q;key=a.%2A;args=")).status, "204");
  });

  it("an exchange-to-exchange binding with arguments is unbound through the location GET /bindings gives", async () => {
    assert.equal((await m.request("PUT", "/exchanges/e-src", { type: "headers", durable: false })).status, "204");
    assert.equal((await m.request("PUT", "/exchanges/e-dst", { type: "fanout", durable: false })).status, "204");
    assert.equal((await m.request("PUT", "/queues/e-q", { durable: false })).status, "201");
    assert.equal((await m.request("POST", "/bindings", { source: "e-dst", destination_queue: "e-q", binding_key: "" })).status, "204");
    const args = { "x-match": "all", region: "eu" };
    assert.equal((await m.request("POST", "/bindings", { source: "e-src", destination_exchange: "e-dst", binding_key: "", arguments: args })).status, "204");
    ch.publish("e-src", "", Buffer.from("eu"), { headers: { region: "eu" } });
    await ch.checkQueue("e-q");
    assert.equal((await ch.checkQueue("e-q")).messageCount, 1);

    const list = (await m.request("GET", "/bindings?src=e-src&dste=e-dst&key=")).body as Info[];
    assert.equal(list.length, 1);
    assert.deepEqual(list[0]!["arguments"], args);
    const location = String(list[0]!["location"]);
    assert.match(location, /^\/bindings\/src=e-src;dste=e-dst;key=;args=[A-Za-z0-9_-]+$/);
    // The path without the arguments' hash names another binding: nothing is unbound.
    assert.equal((await m.request("DELETE", "/bindings/src=e-src;dste=e-dst;key=;args=")).status, "204");
    assert.equal(((await m.request("GET", "/bindings?src=e-src&dste=e-dst&key=")).body as Info[]).length, 1);
    assert.equal((await m.request("DELETE", location)).status, "204");
    assert.deepEqual((await m.request("GET", "/bindings?src=e-src&dste=e-dst&key=")).body, []);
  });

  it("bad requests get RabbitMQ 4's status codes with the reason as the body", async () => {
    const bad = await m.request("PUT", "/queues/bad-prop", { durable: true, colour: "blue" });
    assert.equal(bad.status, "400");
    assert.match(String(bad.body), /bad queue property colour/);
    assert.equal((await m.request("PUT", "/queues/", {})).status, "400");
    const reserved = await m.request("PUT", "/queues/amq.mine", {});
    assert.equal(reserved.status, "403");
    assert.equal(reserved.body, "queue 'amq.mine' in vhost '/' starts with reserved prefix 'amq.'");
    assert.equal((await m.request("PUT", "/queues/bad-args", { arguments: { "x-max-length": "ten" } })).status, "409");
    assert.equal((await m.request("GET", "/nowhere")).status, "404");
    assert.equal((await m.request("PATCH", "/queues/x")).status, "405");
    assert.equal((await m.request("POST", "/bindings", { source: "", destination_queue: "bound-q", binding_key: "" })).status, "403");
    assert.equal((await m.request("POST", "/bindings", { source: "amq.direct", destination_queue: "no-such-queue", binding_key: "k" })).status, "400");
    assert.equal((await m.request("GET", "/bindings?src=amq.direct&key=k")).status, "400");
    assert.equal((await m.request("DELETE", "/bindings/garbage")).status, "400");
    // A binary message-id (the Erlang client's) comes back as the correlation-id.
    const id = Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]);
    const r = await m.request("GET", "/queues/orders", null, rhea.types.wrap_binary(id));
    assert.deepEqual(r.message.correlation_id, id);
    // Nothing of the above disturbed the pair.
    assert.equal((await m.request("GET", "/queues/orders")).status, "200");
  });

  it("a declare over the vhost's queue limit is a 403 (RabbitMQ 4's queue_limit_exceeded), not a 409", async () => {
    broker.broker.putVhost("capped", {});
    broker.broker.setPermission("guest", "capped", { configure: ".*", write: ".*", read: ".*" });
    broker.broker.putParameter("vhost-limits", "capped", "limits", { "max-queues": 1 });
    const c = await connect(broker.amqpPort, { hostname: "vhost:capped" });
    const cm = await openManagement(c);
    assert.equal((await cm.request("PUT", "/queues/first", { durable: true })).status, "201");
    const over = await cm.request("PUT", "/queues/second", { durable: true });
    assert.equal(over.status, "403");
    assert.match(String(over.body), /queue limit in vhost 'capped' \(1\) is reached/);
    assert.equal(broker.broker.vhost("capped").queues.has("second"), false);
    // A redeclare of the queue there is no limit for; a different declaration stays a 409.
    assert.equal((await cm.request("PUT", "/queues/first", { durable: true })).status, "200");
    assert.equal((await cm.request("PUT", "/queues/first", { durable: false })).status, "409");
    await close(c);
  });

  it("a missing permission ends the session with amqp:unauthorized-access (RabbitMQ 4); the connection lives on", async () => {
    broker.broker.putUser("limited", { password: "pw", tags: [] });
    broker.broker.setPermission("limited", "/", { configure: "^own-", write: ".*", read: ".*" });
    const c = await connect(broker.amqpPort, { username: "limited", password: "pw" });
    const lm = await openManagement(c);
    assert.equal((await lm.request("PUT", "/queues/own-q", { durable: false })).status, "201");
    const ended = lm.sessionError();
    void lm.request("PUT", "/queues/not-mine", { durable: false }).catch(() => undefined);
    const e = await ended;
    assert.equal(e.condition, "amqp:unauthorized-access");
    assert.match(e.description, /configure access to queue 'not-mine'|access to queue 'not-mine'/);
    assert.equal(broker.broker.vhost("/").queues.has("not-mine"), false);
    const again = await openManagement(c);
    assert.equal((await again.request("GET", "/queues/own-q")).status, "200");
    await close(c);
  });

  it("the pair is checked: no paired property, or a request before the response link, is refused", async () => {
    const c = await connect(broker.amqpPort);
    await assert.rejects(openManagement(c, { paired: false }), (e: { condition?: string }) => e.condition === "amqp:invalid-field");
    const half = await openManagement(c, { responses: false });
    const ended = half.sessionError();
    half.sender.send({ message_id: "x", to: "/queues/orders", subject: "GET", reply_to: "$me", body: null });
    assert.equal((await ended).condition, "amqp:precondition-failed");
    const ok = await openManagement(c);
    assert.equal((await ok.request("GET", "/queues/orders")).status, "200");
    await close(c);
  });

  it("an unsettled request detaches the request link with amqp:invalid-field", async () => {
    const c = await connect(broker.amqpPort);
    const session = c.create_session();
    session.begin();
    const props = { paired: true };
    const sender = session.open_sender({ name: "unsettled", target: { address: "/management" }, source: { address: "/management" }, snd_settle_mode: 2, properties: props } as never);
    assert.equal((await linkError(sender)).condition, "amqp:invalid-field");
    await close(c);
  });
});
