// Policies and operator policies take effect on queues and exchanges at once, as RabbitMQ
// applies them: max-length trims a full queue, message-ttl applies to new messages, DLX /
// overflow / expires / delivery-limit / alternate-exchange by policy, arguments vs policies,
// operator policies merged (smaller limit wins), records, persistence; 400 for bad arguments.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { deathsOf, nextMessage } from "../helpers/next-message.js";
import { eventually, withTimeout } from "../helpers/wait.js";

describe("policies applied to queues and exchanges", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-policies-"));
  let broker: TestBroker;
  let conn: ChannelModel;
  const call = apiClient(() => broker.httpUrl);
  const policy = (name: string, pattern: string, definition: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    call("PUT", `/api/policies/%2f/${name}`, { pattern, definition, "apply-to": "queues", ...extra });
  before(async () => {
    broker = await startTestBroker({ dataDir });
    conn = await amqp.connect(broker.amqpUrl);
  });
  after(async () => {
    await conn.close();
    await broker.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("a new max-length trims a queue that already holds messages; deleting the policy lifts it", async () => {
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("pol.len", { durable: false });
    for (let i = 0; i < 5; i++) ch.sendToQueue("pol.len", Buffer.from(String(i)));
    await ch.waitForConfirms();
    assert.equal((await policy("len", "^pol\\.len$", { "max-length": 2 })).status, 201);
    assert.equal((await ch.checkQueue("pol.len")).messageCount, 2);
    const q = (await call("GET", "/api/queues/%2f/pol.len")).json!;
    assert.equal(q["policy"], "len");
    assert.deepEqual(q["effective_policy_definition"], { "max-length": 2 });
    const head = await ch.get("pol.len", { noAck: true });
    assert.ok(head);
    assert.equal(head.content.toString(), "3", "drop-head kept the newest");
    assert.equal((await call("DELETE", "/api/policies/%2f/len")).status, 204);
    for (let i = 0; i < 3; i++) ch.sendToQueue("pol.len", Buffer.from("more"));
    await ch.waitForConfirms();
    assert.equal((await ch.checkQueue("pol.len")).messageCount, 4);
    await ch.deleteQueue("pol.len");
    await ch.close();
  });

  it("a new message-ttl applies to messages published after it; a policy DLX receives them", async () => {
    const ch = await conn.createChannel();
    await ch.assertQueue("pol.ttl.dead", { durable: false });
    await ch.assertQueue("pol.ttl", { durable: false });
    ch.sendToQueue("pol.ttl", Buffer.from("before"));
    await eventually(async () => (await ch.checkQueue("pol.ttl")).messageCount === 1);
    assert.equal((await policy("ttl", "^pol\\.ttl$", { "message-ttl": 50, "dead-letter-exchange": "", "dead-letter-routing-key": "pol.ttl.dead" })).status, 201);
    ch.sendToQueue("pol.ttl", Buffer.from("after"));
    const head = await ch.get("pol.ttl", { noAck: true });
    assert.ok(head);
    assert.equal(head.content.toString(), "before", "messages already queued keep their (absent) expiry");
    const dead = await nextMessage(ch, "pol.ttl.dead");
    assert.equal(dead.content.toString(), "after");
    assert.equal(deathsOf(dead)[0]!["reason"], "expired");
    ch.ack(dead);
    await call("DELETE", "/api/policies/%2f/ttl");
    await ch.close();
  });

  it("arguments win over the policy for dead-letter-exchange; the smaller max-length wins", async () => {
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("arg.dead", { durable: false });
    await ch.assertQueue("pol.dead", { durable: false });
    await ch.assertQueue("mix.q", { durable: false, arguments: { "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "arg.dead", "x-max-length": 5 } });
    await policy("mix", "^mix\\.", { "dead-letter-exchange": "amq.direct", "dead-letter-routing-key": "pol.dead", "max-length": 1 });
    ch.sendToQueue("mix.q", Buffer.from("1"));
    ch.sendToQueue("mix.q", Buffer.from("2"));
    await ch.waitForConfirms();
    assert.equal((await ch.checkQueue("mix.q")).messageCount, 1, "policy max-length 1 < argument 5");
    const dead = await nextMessage(ch, "arg.dead");
    assert.equal(dead.content.toString(), "1");
    ch.ack(dead);
    assert.equal((await ch.checkQueue("pol.dead")).messageCount, 0);
    await call("DELETE", "/api/policies/%2f/mix");
    await ch.close();
  });

  it("overflow reject-publish by policy nacks publishes", async () => {
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("pol.rp", { durable: false });
    await policy("rp", "^pol\\.rp$", { "max-length": 1, overflow: "reject-publish" });
    const send = (b: string) => withTimeout(new Promise<boolean>((r) => ch.sendToQueue("pol.rp", Buffer.from(b), {}, (err) => r(!err))), 3000, "confirm");
    assert.equal(await send("a"), true);
    assert.equal(await send("b"), false);
    await call("DELETE", "/api/policies/%2f/rp");
    assert.equal(await send("c"), true, "the limit went with the policy");
    await ch.close();
  });

  it("expires by policy deletes an unused queue", async () => {
    const ch = await conn.createChannel();
    await ch.assertQueue("pol.exp", { durable: false });
    await policy("exp", "^pol\\.exp$", { expires: 100 });
    await eventually(async () => (await call("GET", "/api/queues/%2f/pol.exp")).status === 404, 3000, "pol.exp deleted");
    await call("DELETE", "/api/policies/%2f/exp");
    await ch.close();
  });

  it("delivery-limit by a quorum_queues policy applies to quorum queues only", async () => {
    const ch = await conn.createChannel();
    await policy("dl", "^pol\\.dl", { "delivery-limit": 0 }, { "apply-to": "quorum_queues" });
    await ch.assertQueue("pol.dl.q", { durable: true, arguments: { "x-queue-type": "quorum" } });
    await ch.assertQueue("pol.dl.c", { durable: false });
    const qq = (await call("GET", "/api/queues/%2f/pol.dl.q")).json!;
    assert.equal(qq["type"], "quorum");
    assert.equal(qq["leader"], qq["node"]);
    assert.deepEqual(qq["members"], [qq["node"]]);
    assert.equal((await call("GET", "/api/queues/%2f/pol.dl.q")).json!["policy"], "dl");
    assert.equal((await call("GET", "/api/queues/%2f/pol.dl.c")).json!["policy"], null);
    ch.sendToQueue("pol.dl.q", Buffer.from("once"));
    const m = await nextMessage(ch, "pol.dl.q");
    ch.nack(m, false, true);
    await eventually(async () => (await ch.checkQueue("pol.dl.q")).messageCount === 0 && (await call("GET", "/api/queues/%2f/pol.dl.q")).json!["messages"] === 0);
    await ch.deleteQueue("pol.dl.q");
    await call("DELETE", "/api/policies/%2f/dl");
    await ch.close();
  });

  it("alternate-exchange by policy; the exchange argument wins", async () => {
    const ch = await conn.createChannel();
    await ch.assertExchange("ae.pol", "fanout", { durable: false });
    await ch.assertExchange("ae.arg", "fanout", { durable: false });
    await ch.assertQueue("ae.pol.q", { durable: false });
    await ch.assertQueue("ae.arg.q", { durable: false });
    await ch.bindQueue("ae.pol.q", "ae.pol", "");
    await ch.bindQueue("ae.arg.q", "ae.arg", "");
    await ch.assertExchange("src.plain", "direct", { durable: false });
    await ch.assertExchange("src.witharg", "direct", { durable: false, alternateExchange: "ae.arg" });
    assert.equal((await call("PUT", "/api/policies/%2f/ae", { pattern: "^src\\.", definition: { "alternate-exchange": "ae.pol" }, "apply-to": "exchanges" })).status, 201);
    const x = (await call("GET", "/api/exchanges/%2f/src.plain")).json!;
    assert.equal(x["policy"], "ae");
    assert.deepEqual(x["effective_policy_definition"], { "alternate-exchange": "ae.pol" });
    ch.publish("src.plain", "nowhere", Buffer.from("p"));
    ch.publish("src.witharg", "nowhere", Buffer.from("a"));
    await eventually(async () => (await ch.checkQueue("ae.pol.q")).messageCount === 1 && (await ch.checkQueue("ae.arg.q")).messageCount === 1);
    await call("DELETE", "/api/policies/%2f/ae");
    ch.publish("src.plain", "nowhere", Buffer.from("p2"));
    await ch.checkQueue("ae.pol.q");
    assert.equal((await ch.checkQueue("ae.pol.q")).messageCount, 1, "no policy, no alternate");
    await ch.close();
  });

  it("operator policies: admin only, operator keys only, smaller limit wins, shown on records, persisted", async () => {
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("op.q", { durable: true });
    await policy("user", "^op\\.", { "max-length": 10, "message-ttl": 1000, "dead-letter-exchange": "x" });
    const bad = await call("PUT", "/api/operator-policies/%2f/op", { pattern: "^op\\.", definition: { "dead-letter-exchange": "y" } });
    assert.equal(bad.status, 400);
    assert.match(String(bad.json!["reason"]), /not recognised policy settings/);
    assert.equal((await call("PUT", "/api/operator-policies/%2f/op", { pattern: "^op\\.", definition: { "max-length": 3, "message-ttl": 5000, expires: 600000 }, "apply-to": "queues" })).status, 201);
    const q = (await call("GET", "/api/queues/%2f/op.q")).json!;
    assert.equal(q["policy"], "user");
    assert.equal(q["operator_policy"], "op");
    assert.deepEqual(q["effective_policy_definition"], { "max-length": 3, "message-ttl": 1000, "dead-letter-exchange": "x", expires: 600000 });
    for (let i = 0; i < 5; i++) ch.sendToQueue("op.q", Buffer.from(String(i)));
    await ch.waitForConfirms();
    assert.equal((await ch.checkQueue("op.q")).messageCount, 3);
    const listed = (await call("GET", "/api/operator-policies/%2f")).json as unknown as Array<Record<string, unknown>>;
    assert.deepEqual(listed.map((p) => p["name"]), ["op"]);
    assert.equal((await call("GET", "/api/operator-policies/%2f/op")).json!["pattern"], "^op\\.");
    await ch.close();

    // Restart on the same data dir: the operator policy is back and still applies.
    await conn.close();
    await broker.close();
    broker = await startTestBroker({ dataDir });
    conn = await amqp.connect(broker.amqpUrl);
    const again = (await call("GET", "/api/queues/%2f/op.q")).json!;
    assert.equal(again["operator_policy"], "op");
    assert.equal((await call("DELETE", "/api/operator-policies/%2f/op")).status, 204);
    assert.equal((await call("GET", "/api/operator-policies/%2f/op")).status, 404);
    assert.deepEqual((await call("GET", "/api/queues/%2f/op.q")).json!["effective_policy_definition"], { "max-length": 10, "message-ttl": 1000, "dead-letter-exchange": "x" });
    await call("DELETE", "/api/policies/%2f/user");
    await call("DELETE", "/api/queues/%2f/op.q");
  });

  it("operator policies are set and read by name by administrators; their lists are open as in RabbitMQ", async () => {
    await call("PUT", "/api/users/pm", { password: "pm", tags: "policymaker" });
    await call("PUT", "/api/permissions/%2f/pm", { configure: ".*", write: ".*", read: ".*" });
    const res = await call("PUT", "/api/operator-policies/%2f/nope", { pattern: ".*", definition: { "max-length": 1 } }, "pm:pm");
    assert.equal(res.status, 403);
    assert.equal((await call("PUT", "/api/operator-policies/%2f/cap", { pattern: "^cap", definition: { "max-length": 1 } })).status, 201);
    assert.equal((await call("GET", "/api/operator-policies/%2f/cap", undefined, "pm:pm")).status, 403, "one operator policy by name: administrators only");
    // RabbitMQ's rabbit_mgmt_wm_operator_policies: is_authorized_vhost with filter_vhost.
    const listed = await call("GET", "/api/operator-policies", undefined, "pm:pm");
    assert.equal(listed.status, 200);
    assert.deepEqual((listed.json as unknown as Array<{ name: string }>).map((p) => p.name), ["cap"]);
    await call("DELETE", "/api/operator-policies/%2f/cap");
  });

  it("PUT /api/queues refuses invalid argument values with 400 and RabbitMQ's text", async () => {
    const res = await call("PUT", "/api/queues/%2f/badargs", { durable: true, arguments: { "x-message-ttl": -1 } });
    assert.equal(res.status, 400);
    assert.equal(res.json!["error"], "bad_request");
    assert.match(String(res.json!["reason"]), /invalid arg 'x-message-ttl' for queue 'badargs' in vhost '\/': \{value_negative,-1\}/);
    const overflow = await call("PUT", "/api/queues/%2f/badargs", { arguments: { "x-overflow": "sideways" } });
    assert.equal(overflow.status, 400);
    const qq = await call("PUT", "/api/queues/%2f/badargs", { durable: false, arguments: { "x-queue-type": "quorum" } });
    assert.equal(qq.status, 400);
    assert.match(String(qq.json!["reason"]), /invalid property 'non-durable'/);
    assert.equal((await call("GET", "/api/queues/%2f/badargs")).status, 404, "nothing created");
  });
});
