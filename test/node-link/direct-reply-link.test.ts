// The link's part of issue 42's RPC across nodes, between two real brokers on a TCP loopback link
// (A connects, B accepts): a direct reply-to reply published on A to a key naming B crosses as
// DIRECT_REPLY and reaches B's requester; one to a requester gone is dropped on B, confirmed on A;
// and an exclusive queue of B's connections, held on A, is never declared on B by the link (a
// publish naming it after B deleted it does not bring it back as an ordinary queue).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import amqp, { type ConsumeMessage } from "amqplib";
import { OwnerElsewhere } from "../../src/broker/index.js";
import { RepliesToWorkers } from "../../src/workers/worker-exclusive.js";
import { withTimeout } from "../helpers/wait.js";
import { linkAToB, useTwoNodes } from "./two-nodes.js";

describe("direct reply-to and exclusive queues over a link", () => {
  const fx = useTwoNodes();

  it("a reply published on A to B's requester crosses the link; one to a requester gone is dropped, confirmed", async () => {
    const link = await linkAToB(fx);
    fx.b.broker.directReply.reachOthers("rabbit@b", new RepliesToWorkers(["rabbit@a", "rabbit@b"], () => link));
    fx.a.broker.directReply.reachOthers("rabbit@a", new RepliesToWorkers(["rabbit@a", "rabbit@b"], () => link));
    const connB = await amqp.connect(fx.b.amqpUrl);
    const requester = await connB.createChannel();
    let resolve!: (m: ConsumeMessage) => void;
    const reply = new Promise<ConsumeMessage>((r) => (resolve = r));
    await requester.consume("amq.rabbitmq.reply-to", (m) => m && resolve(m), { noAck: true });
    // The request goes to a queue on B whose consumer reads the address B wrote into it.
    await requester.assertQueue("requests", { durable: false });
    requester.sendToQueue("requests", Buffer.from("ping"), { replyTo: "amq.rabbitmq.reply-to", correlationId: "7" });
    const got = await requester.get("requests", { noAck: true });
    assert.ok(got !== false);
    const address = got.properties.replyTo as string;
    const connA = await amqp.connect(fx.a.amqpUrl);
    const server = await connA.createConfirmChannel();
    server.publish("", address, Buffer.from("pong"), { correlationId: "7" });
    await server.waitForConfirms();
    const m = await withTimeout(reply, 5000, "the reply on B");
    assert.equal(m.content.toString(), "pong");
    assert.equal(m.properties.correlationId, "7");
    await requester.close();
    server.publish("", address, Buffer.from("too late"), { mandatory: true });
    await server.waitForConfirms();
    // B dropped it and serves on: its other clients are untouched.
    const other = await connB.createChannel();
    assert.equal((await other.checkQueue("requests")).messageCount, 0);
    await connA.close();
    await connB.close();
  });

  it("a link's first naming of an exclusive queue carries no record: the leader never declares it", async () => {
    const link = await linkAToB(fx);
    const spec = { name: "excl-gone-on-b", durable: false, autoDelete: false, exclusiveOwner: new OwnerElsewhere("rabbit@b"), arguments: {} };
    fx.a.broker.leadQueueElsewhere("/", spec, link);
    const connA = await amqp.connect(fx.a.amqpUrl);
    const ch = await connA.createConfirmChannel();
    ch.sendToQueue("excl-gone-on-b", Buffer.from("x"));
    await ch.waitForConfirms();
    assert.equal(fx.b.broker.vhost("/").queues.has("excl-gone-on-b"), false);
    await connA.close();
  });
});
