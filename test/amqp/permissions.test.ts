// The spec's permission model over AMQP, with its five profiles: authentication → vhost access
// → the pattern of the needed kind, and changes applying to open connections.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type Channel, type ChannelModel } from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { WireClient } from "../helpers/wire-client.js";

function refused(code: number, text: RegExp) {
  return (err: unknown): boolean => {
    const e = err as { code?: number; message?: string };
    assert.equal(e.code, code, String(e.message));
    assert.match(String(e.message), text);
    return true;
  };
}

describe("permissions over AMQP", () => {
  let broker: TestBroker;
  const conns: ChannelModel[] = [];

  before(async () => {
    broker = await startTestBroker();
    const b = broker.broker;
    b.putVhost("app", {});
    const profiles: Array<[string, string, string, string]> = [
      ["full", ".*", ".*", ".*"],
      ["producer", "^$", "^orders$", "^$"],
      ["consumer", "^$", "^$", "^orders-.*"],
      ["monitor", "^$", "^$", ".*"],
      ["app1", "^app1_.*", "^app1_.*", "^app1_.*"],
    ];
    for (const [user, c, w, r] of profiles) {
      b.putUser(user, { password: "pw", tags: [] });
      b.setPermission(user, "app", { configure: c, write: w, read: r });
    }
    b.putUser("nobody", { password: "pw", tags: [] });
    const admin = await amqp.connect(broker.urlFor("full", "pw", "app"));
    const ch = await admin.createChannel();
    await ch.assertExchange("orders", "direct", { durable: false });
    await ch.assertQueue("orders-eu", { durable: false });
    await ch.bindQueue("orders-eu", "orders", "eu");
    await admin.close();
  });
  after(async () => {
    for (const c of conns) await c.close().catch(() => {});
    await broker.close();
  });

  async function channel(user: string): Promise<Channel> {
    const c = await amqp.connect(broker.urlFor(user, "pw", "app"));
    c.on("error", () => {});
    conns.push(c);
    const ch = await c.createChannel();
    ch.on("error", () => {});
    return ch;
  }

  it("wrong password: 403 ACCESS_REFUSED at login", async () => {
    await assert.rejects(amqp.connect(broker.urlFor("full", "nope", "app")), /ACCESS_REFUSED|403/);
  });

  it("no permission in the vhost: 530 NOT_ALLOWED at connection.open", async () => {
    // amqplib reports only "got ConnectionClose" here; the exact reply is checked on the wire below.
    await assert.rejects(amqp.connect(broker.urlFor("nobody", "pw", "app")), /ConnectionClose/);
    await assert.rejects(amqp.connect(broker.urlFor("full", "pw", "no-such-vhost")), /ConnectionClose/);
    const c = await WireClient.connect(broker.amqpPort);
    await c.handshake(0, "nobody", "pw", "app").catch(() => {});
    const reply = c.lastClose();
    assert.equal(reply?.replyCode, 530);
    assert.equal(reply?.replyText, "NOT_ALLOWED - access to vhost 'app' refused for user 'nobody'");
    c.close();
  });

  it("full access can do everything", async () => {
    const ch = await channel("full");
    await ch.assertQueue("anything");
    await ch.deleteQueue("anything");
  });

  it("producer to one exchange: publish there only, nothing else", async () => {
    const ch = await channel("producer");
    ch.publish("orders", "eu", Buffer.from("o1"));
    await ch.checkExchange("orders").catch(() => {}); // passive declare needs read: refused, closes channel
    const ch2 = await channel("producer");
    await assert.rejects(ch2.assertQueue("mine"), refused(403, /ACCESS_REFUSED - access to queue 'mine' in vhost 'app' refused for user 'producer'/));
    const ch3 = await channel("producer");
    ch3.publish("amq.direct", "eu", Buffer.from("x"));
    await assert.rejects(ch3.assertQueue("x2"), refused(403, /access to (exchange 'amq.direct'|queue 'x2')/));
    const ch4 = await channel("producer");
    await assert.rejects(ch4.get("orders-eu"), refused(403, /access to queue 'orders-eu' in vhost 'app' refused/));
  });

  it("consumer of prefixed queues: read orders-*, nothing else", async () => {
    const ch = await channel("consumer");
    const m = await ch.get("orders-eu", { noAck: true });
    assert.ok(m && m.content.toString() === "o1", "the producer's message arrived");
    await assert.rejects(ch.assertQueue("orders-new"), refused(403, /access to queue 'orders-new' in vhost 'app' refused for user 'consumer'/));
    const ch2 = await channel("consumer");
    ch2.publish("orders", "eu", Buffer.from("no"));
    await assert.rejects(ch2.checkQueue("orders-eu"), refused(403, /access to exchange 'orders' in vhost 'app' refused for user 'consumer'/));
  });

  it("read-only monitoring: passive declares and gets, no writes or configuration", async () => {
    const ch = await channel("monitor");
    const q = await ch.checkQueue("orders-eu");
    assert.equal(q.queue, "orders-eu");
    await assert.rejects(ch.deleteQueue("orders-eu"), refused(403, /access to queue 'orders-eu'/));
  });

  it("prefix-isolated application: only app1_ resources", async () => {
    const ch = await channel("app1");
    await ch.assertExchange("app1_events", "fanout", { durable: false });
    await ch.assertQueue("app1_work", { durable: false });
    await ch.bindQueue("app1_work", "app1_events", "");
    ch.publish("app1_events", "", Buffer.from("hi"));
    const m = await ch.get("app1_work", { noAck: true });
    assert.ok(m);
    await assert.rejects(ch.bindQueue("app1_work", "orders", "eu"), refused(403, /access to exchange 'orders'/));
    const ch2 = await channel("app1");
    await assert.rejects(ch2.assertQueue("app2_work"), refused(403, /access to queue 'app2_work'/));
  });

  it("a permission change applies to an open connection's next operation", async () => {
    const ch = await channel("app1");
    await ch.assertQueue("app1_live", { durable: false });
    broker.broker.setPermission("app1", "app", { configure: "^$", write: "^$", read: "^$" });
    try {
      await assert.rejects(ch.assertQueue("app1_live2"), refused(403, /access to queue 'app1_live2'/));
    } finally {
      broker.broker.setPermission("app1", "app", { configure: "^app1_.*", write: "^app1_.*", read: "^app1_.*" });
    }
  });
});
