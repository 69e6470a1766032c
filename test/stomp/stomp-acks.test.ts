// STOMP acknowledgements, prefetch and transactions against a real broker: ack client /
// client-individual, NACK requeue and discard, prefetch-count, BEGIN/COMMIT/ABORT; permissions
// through the broker's checker; bad input answered by ERROR and a close, others undisturbed.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { useStompBroker } from "./stomp-fixture.js";
import { StompWire } from "../helpers/stomp-wire.js";
import { eventually } from "../helpers/wait.js";

describe("STOMP acks, transactions, permissions and bad input", () => {
  const fx = useStompBroker((broker) => {
    const b = broker.broker;
    b.putUser("reader", { password: "pw", tags: [] });
    b.setPermission("reader", "/", { configure: ".*", write: "^stomp-subscription-.*", read: ".*" });
    b.putUser("topical", { password: "pw", tags: [] });
    b.setPermission("topical", "/", { configure: ".*", write: ".*", read: ".*" });
    b.setTopicPermission("topical", "/", { exchange: "amq.topic", write: "^sensors\\.", read: ".*" });
  });
  const depth = async (q: string): Promise<{ ready: number; unacked: number }> => {
    const queue = fx.broker.broker.vhosts.get("/")!.queues.get(q)!;
    return { ready: queue.messageCount, unacked: queue.unacked };
  };

  it("client-individual: ACK settles one; NACK requeues (redelivered) or, requeue:false, discards", async () => {
    await fx.ch.assertQueue("ci", { durable: false });
    for (const n of ["1", "2", "3"]) fx.ch.sendToQueue("ci", Buffer.from(n));
    const w = await fx.login();
    w.send("SUBSCRIBE", { id: "s", destination: "/amq/queue/ci", ack: "client-individual" });
    const m = [await w.nextOf("MESSAGE"), await w.nextOf("MESSAGE"), await w.nextOf("MESSAGE")];
    assert.ok(m[0]!.headers["ack"], "1.2 sends an ack header");
    w.send("ACK", { id: m[1]!.headers["ack"]!, receipt: "a" });
    await w.nextOf("RECEIPT");
    assert.deepEqual(await depth("ci"), { ready: 0, unacked: 2 });
    w.send("NACK", { id: m[0]!.headers["ack"]! });
    const again = await w.nextOf("MESSAGE");
    assert.equal(again.body.toString(), "1");
    assert.equal(again.headers["redelivered"], "true");
    w.send("NACK", { id: m[2]!.headers["ack"]!, requeue: "false" });
    w.send("ACK", { id: again.headers["ack"]!, receipt: "b" });
    await w.nextOf("RECEIPT");
    assert.deepEqual(await depth("ci"), { ready: 0, unacked: 0 });
  });

  it("client acks cumulatively; prefetch-count bounds the deliveries held; closing requeues the rest", async () => {
    await fx.ch.assertQueue("cum", { durable: false });
    for (let i = 0; i < 5; i++) fx.ch.sendToQueue("cum", Buffer.from(String(i)));
    const w = await fx.login();
    w.send("SUBSCRIBE", { id: "c", destination: "/amq/queue/cum", ack: "client", "prefetch-count": "2" });
    const a = await w.nextOf("MESSAGE");
    const b = await w.nextOf("MESSAGE");
    await eventually(async () => (await depth("cum")).unacked === 2);
    assert.equal(w.frames.length, 0, "no third delivery beyond the prefetch");
    assert.equal(a.body.toString(), "0");
    w.send("ACK", { id: b.headers["ack"]!, receipt: "r" });
    // Both held deliveries were settled: two more come (before the receipt, as the ACK freed them).
    const c = await w.nextOf("MESSAGE");
    assert.equal(c.body.toString(), "2");
    assert.equal((await w.nextOf("MESSAGE")).body.toString(), "3");
    await w.nextOf("RECEIPT");
    await eventually(async () => (await depth("cum")).unacked === 2);
    w.close();
    await eventually(async () => (await depth("cum")).ready === 3, 5000, "held deliveries requeued at close");
  });

  it("STOMP 1.1 acknowledges by message-id and subscription", async () => {
    await fx.ch.assertQueue("v11", { durable: false });
    fx.ch.sendToQueue("v11", Buffer.from("x"));
    const w = await fx.login({ "accept-version": "1.1" });
    w.send("SUBSCRIBE", { id: "s", destination: "/amq/queue/v11", ack: "client" });
    const m = await w.nextOf("MESSAGE");
    assert.equal(m.headers["ack"], undefined);
    w.send("ACK", { "message-id": m.headers["message-id"]!, subscription: "s", receipt: "r" });
    await w.nextOf("RECEIPT");
    assert.deepEqual(await depth("v11"), { ready: 0, unacked: 0 });
  });

  it("a transaction's SENDs reach the queue only at COMMIT; ABORT drops them; an unknown one is an error", async () => {
    const w = await fx.login();
    w.send("BEGIN", { transaction: "t1" });
    w.send("SEND", { destination: "/queue/txq", transaction: "t1" }, "a");
    w.send("SEND", { destination: "/queue/txq", transaction: "t1" }, "b");
    w.send("BEGIN", { transaction: "t2" });
    w.send("SEND", { destination: "/queue/txq", transaction: "t2" }, "dropped");
    w.send("ABORT", { transaction: "t2", receipt: "ab" });
    await w.nextOf("RECEIPT");
    assert.equal(fx.broker.broker.vhosts.get("/")!.queues.get("txq"), undefined, "nothing sent before COMMIT");
    w.send("COMMIT", { transaction: "t1", receipt: "c" });
    await w.nextOf("RECEIPT");
    assert.equal((await fx.ch.checkQueue("txq")).messageCount, 2);
    w.send("COMMIT", { transaction: "nope" });
    const e = await w.next();
    assert.equal(e.headers["message"], "Bad transaction");
    assert.equal(e.body.toString(), 'Invalid transaction identifier: "nope"\n');
  });

  it("permissions and topic permissions are the broker's: access_refused as an ERROR", async () => {
    const r = await fx.login({ login: "reader", passcode: "pw" });
    r.send("SEND", { destination: "/topic/x" }, "1");
    const e = await r.next();
    assert.equal(e.headers["message"], "access_refused");
    assert.match(e.body.toString(), /^ACCESS_REFUSED - access to exchange 'amq.topic' in vhost '\/' refused for user 'reader'/);
    const t = await fx.login({ login: "topical", passcode: "pw" });
    t.send("SEND", { destination: "/topic/sensors.a", receipt: "ok" }, "1");
    await t.nextOf("RECEIPT");
    t.send("SEND", { destination: "/topic/other.a" }, "1");
    const e2 = await t.next();
    assert.equal(e2.headers["message"], "access_refused");
    assert.match(e2.body.toString(), /topic/);
  });

  it("bad input gets ERROR and a close, and another client is not disturbed", async () => {
    const bystander = await fx.login();
    bystander.send("SUBSCRIBE", { id: "b", destination: "/queue/calm", receipt: "r" });
    await bystander.nextOf("RECEIPT");
    // content-length that the NUL does not follow
    const a = await fx.login();
    a.send("SEND", { destination: "/queue/calm", "content-length": "1" }, "toolong");
    assert.equal((await a.next()).headers["message"], "Invalid frame");
    await a.whenClosed();
    // a header line without a colon
    const b = await fx.login();
    b.write("SEND\nnocolon\n\nx\u0000");
    assert.equal((await b.next()).headers["message"], "Invalid frame");
    await b.whenClosed();
    // oversize headers before CONNECT, never terminated
    const c = await StompWire.open(fx.port);
    fx.track(c);
    c.write(`CONNECT\nx:${"a".repeat(20_000)}`);
    const ce = await c.next();
    assert.equal(ce.headers["message"], "Invalid frame");
    await c.whenClosed();
    // an oversize body before CONNECT, never terminated
    const d = await StompWire.open(fx.port);
    fx.track(d);
    d.write(`CONNECT\nlogin:guest\n\n${"b".repeat(70_000)}`);
    assert.equal((await d.next()).headers["message"], "Invalid frame");
    await d.whenClosed();
    // an undefined escape in 1.2
    const e = await fx.login();
    e.send("SEND", { destination: "/queue/calm", bad: "a\\tb" }, "x");
    assert.equal((await e.next()).headers["message"], "Invalid frame");
    await e.whenClosed();
    fx.ch.sendToQueue("calm", Buffer.from("still here"));
    assert.equal((await bystander.nextOf("MESSAGE")).body.toString(), "still here");
  });
});
