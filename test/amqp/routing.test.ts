// Exchange types and routing over a real broker: direct, fanout, topic, headers, e2e bindings,
// alternate exchanges, mandatory returns.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Message } from "amqplib";
import { useBrokerWithChannel } from "../helpers/broker-fixture.js";
import { withTimeout } from "../helpers/wait.js";

describe("routing", () => {
  const fx = useBrokerWithChannel();

  /** Publishes, then drains each queue with basic.get, returning the bodies per queue. */
  async function routeAndCollect(exchange: string, queues: string[], publishes: Array<[string, string, Record<string, unknown>?]>): Promise<string[][]> {
    for (const [key, body, headers] of publishes) fx.ch.publish(exchange, key, Buffer.from(body), headers ? { headers } : {});
    await fx.ch.checkQueue(queues[0]!); // round trip: all publishes processed
    const out: string[][] = [];
    for (const q of queues) {
      const got: string[] = [];
      for (let m = await fx.ch.get(q, { noAck: true }); m; m = await fx.ch.get(q, { noAck: true })) got.push(m.content.toString());
      out.push(got);
    }
    return out;
  }

  async function tempQueues(n: number): Promise<string[]> {
    const qs = [];
    for (let i = 0; i < n; i++) qs.push((await fx.ch.assertQueue("", { exclusive: true })).queue);
    return qs;
  }

  it("direct: exact routing key match", async () => {
    await fx.ch.assertExchange("t.direct", "direct", { autoDelete: true });
    const [q1, q2] = await tempQueues(2);
    await fx.ch.bindQueue(q1!, "t.direct", "a");
    await fx.ch.bindQueue(q2!, "t.direct", "b");
    await fx.ch.bindQueue(q2!, "t.direct", "a");
    const [g1, g2] = await routeAndCollect("t.direct", [q1!, q2!], [["a", "1"], ["b", "2"], ["c", "3"]]);
    assert.deepEqual(g1, ["1"]);
    assert.deepEqual(g2, ["1", "2"]);
  });

  it("fanout: every bound queue", async () => {
    await fx.ch.assertExchange("t.fanout", "fanout", { autoDelete: true });
    const qs = await tempQueues(3);
    for (const q of qs) await fx.ch.bindQueue(q, "t.fanout", "ignored");
    const got = await routeAndCollect("t.fanout", qs, [["x", "1"], ["y", "2"]]);
    assert.deepEqual(got, [["1", "2"], ["1", "2"], ["1", "2"]]);
  });

  it("topic: * is one word, # is zero or more", async () => {
    await fx.ch.assertExchange("t.topic", "topic", { autoDelete: true });
    const [star, hash, exact, all] = await tempQueues(4);
    await fx.ch.bindQueue(star!, "t.topic", "stock.*.nyse");
    await fx.ch.bindQueue(hash!, "t.topic", "stock.#");
    await fx.ch.bindQueue(exact!, "t.topic", "stock.ibm.nyse");
    await fx.ch.bindQueue(all!, "t.topic", "#");
    const got = await routeAndCollect("t.topic", [star!, hash!, exact!, all!], [
      ["stock.ibm.nyse", "1"],
      ["stock.msft.nasdaq", "2"],
      ["stock", "3"],
      ["stock.a.b.nyse", "4"],
      ["", "5"],
    ]);
    assert.deepEqual(got, [["1"], ["1", "2", "3", "4"], ["1"], ["1", "2", "3", "4", "5"]]);
  });

  it("topic: a queue bound twice gets one copy", async () => {
    await fx.ch.assertExchange("t.topic2", "topic", { autoDelete: true });
    const [q] = await tempQueues(1);
    await fx.ch.bindQueue(q!, "t.topic2", "a.*");
    await fx.ch.bindQueue(q!, "t.topic2", "#");
    const [got] = await routeAndCollect("t.topic2", [q!], [["a.b", "1"]]);
    assert.deepEqual(got, ["1"]);
  });

  it("headers: x-match all and any, x- keys ignored unless with-x", async () => {
    await fx.ch.assertExchange("t.headers", "headers", { autoDelete: true });
    const [all, any, withX] = await tempQueues(3);
    await fx.ch.bindQueue(all!, "t.headers", "", { "x-match": "all", format: "pdf", type: "report" });
    await fx.ch.bindQueue(any!, "t.headers", "", { "x-match": "any", format: "pdf", type: "report" });
    await fx.ch.bindQueue(withX!, "t.headers", "", { "x-match": "all-with-x", "x-tenant": "t1" });
    const got = await routeAndCollect("t.headers", [all!, any!, withX!], [
      ["", "1", { format: "pdf", type: "report" }],
      ["", "2", { format: "pdf" }],
      ["", "3", { other: 1 }],
      ["", "4", { "x-tenant": "t1" }],
    ]);
    assert.deepEqual(got, [["1"], ["1", "2"], ["4"]]);
  });

  it("exchange-to-exchange bindings, with cycles routed once", async () => {
    await fx.ch.assertExchange("t.e1", "fanout", { autoDelete: false });
    await fx.ch.assertExchange("t.e2", "direct", { autoDelete: false });
    const [q] = await tempQueues(1);
    await fx.ch.bindExchange("t.e2", "t.e1", "");
    await fx.ch.bindExchange("t.e1", "t.e2", "k"); // a cycle
    await fx.ch.bindQueue(q!, "t.e2", "k");
    const [got] = await routeAndCollect("t.e1", [q!], [["k", "1"], ["other", "2"]]);
    assert.deepEqual(got, ["1"]);
    await fx.ch.unbindExchange("t.e2", "t.e1", "");
    const [after] = await routeAndCollect("t.e1", [q!], [["k", "3"]]);
    assert.deepEqual(after, []);
    await fx.ch.deleteExchange("t.e1");
    await fx.ch.deleteExchange("t.e2");
  });

  it("alternate exchange receives what the exchange cannot route", async () => {
    await fx.ch.assertExchange("t.ae", "fanout", { autoDelete: true });
    await fx.ch.assertExchange("t.main", "direct", { autoDelete: true, alternateExchange: "t.ae" });
    const [routed, unrouted] = await tempQueues(2);
    await fx.ch.bindQueue(routed!, "t.main", "known");
    await fx.ch.bindQueue(unrouted!, "t.ae", "");
    const got = await routeAndCollect("t.main", [routed!, unrouted!], [["known", "1"], ["unknown", "2"]]);
    assert.deepEqual(got, [["1"], ["2"]]);
  });

  it("mandatory unroutable messages come back with 312 NO_ROUTE", async () => {
    const returned = new Promise<Message>((resolve) => fx.ch.once("return", resolve));
    fx.ch.publish("amq.direct", "nobody-home", Buffer.from("lost"), { mandatory: true, messageId: "r1" });
    const m = await withTimeout(returned, 3000, "basic.return");
    assert.equal(m.content.toString(), "lost");
    assert.equal(m.properties.messageId, "r1");
    assert.equal((m.fields as unknown as { replyCode: number }).replyCode, 312);
    assert.equal((m.fields as unknown as { replyText: string }).replyText, "NO_ROUTE");
  });

  it("unbind removes the route; predeclared amq.* exchanges exist", async () => {
    for (const x of ["amq.direct", "amq.fanout", "amq.topic", "amq.headers", "amq.match"]) await fx.ch.checkExchange(x);
    const [q] = await tempQueues(1);
    await fx.ch.bindQueue(q!, "amq.direct", "k");
    await fx.ch.unbindQueue(q!, "amq.direct", "k");
    const [got] = await routeAndCollect("amq.direct", [q!], [["k", "1"]]);
    assert.deepEqual(got, []);
  });
});
