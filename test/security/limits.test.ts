// Bounds a client cannot push past: management request rate (429), body size (413),
// failed logins per address, open connections per node and per user.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { WireClient } from "../helpers/wire-client.js";

const basic = (user: string, pass: string): string => `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;

describe("limits", () => {
  let broker: TestBroker;
  /** The connection.close a refused handshake gets. */
  const refusal = async (user = "guest", pass = "guest") => {
    const wire = await WireClient.connect(broker.amqpPort);
    await assert.rejects(wire.handshake(0, user, pass), /expected connection.open-ok, got connection.close/);
    wire.close();
    return wire.lastClose();
  };
  const call = async (path: string, auth?: string, init: RequestInit = {}) => {
    const res = await fetch(`${broker.httpUrl}${path}`, { ...init, headers: { ...(auth ? { authorization: auth } : {}), "content-type": "application/json" } });
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  };
  before(async () => {
    broker = await startTestBroker({ httpRateLimit: 30, httpBodyLimit: 1000, maxConnections: 3 });
  });
  after(async () => {
    await broker.close();
  });

  it("answer 429 with Retry-After and a JSON error past the request rate, per user, without hurting other users", async () => {
    assert.equal((await call("/api/users/ratey", basic("guest", "guest"), { method: "PUT", body: JSON.stringify({ password: "pw", tags: "management" }) })).status, 201);
    let last = await call("/api/overview", basic("ratey", "pw"));
    for (let i = 0; i < 40 && last.status === 200; i++) last = await call("/api/overview", basic("ratey", "pw"));
    assert.equal(last.status, 429);
    assert.ok(Number(last.headers.get("retry-after")) > 0, "Retry-After is set");
    assert.equal(last.json!["error"], "too_many_requests");
    assert.match(String(last.json!["reason"]), /30 requests per minute/);
    assert.equal((await call("/api/whoami", basic("guest", "guest"))).status, 200, "another user is not limited");
  });

  /** A GET sent from another loopback address (127.0.0.2), as a second client machine would. */
  const callFrom = (localAddress: string, path: string, auth: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const url = new URL(path, broker.httpUrl);
      const req = request({ host: "127.0.0.1", port: url.port, path: url.pathname, localAddress, headers: { authorization: auth } }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      req.on("error", reject);
      req.end();
    });

  it("count a failed login against its address, not against the user it names", async () => {
    assert.equal((await call("/api/users/victim", basic("guest", "guest"), { method: "PUT", body: JSON.stringify({ password: "right", tags: "management" }) })).status, 201);
    const attacker: number[] = [];
    for (let i = 0; i < 40; i++) attacker.push(await callFrom("127.0.0.2", "/api/whoami", basic("victim", "wrong")));
    assert.ok(attacker.every((s) => s === 401 || s === 429), `the attacker is refused or limited: ${attacker.join(",")}`);
    assert.equal(attacker.at(-1), 429, "and limited in the end");
    assert.equal(await callFrom("127.0.0.1", "/api/whoami", basic("victim", "right")), 200, "the named user's allowance is untouched");
  });

  it("answer 413 with a JSON error for a body over the limit, and store nothing", async () => {
    const big = JSON.stringify({ password: "x".repeat(2000), tags: "" });
    const res = await call("/api/users/too-big", basic("guest", "guest"), { method: "PUT", body: big });
    assert.deepEqual([res.status, res.json], [413, { error: "payload_too_large", reason: "Exceeded HTTP request body size limit" }]);
    assert.equal((await call("/api/users/too-big", basic("guest", "guest"))).status, 404);
  });

  it("refuse AMQP connections past the node's connection limit, with RabbitMQ's text", async () => {
    const open = [await amqp.connect(broker.amqpUrl), await amqp.connect(broker.amqpUrl), await amqp.connect(broker.amqpUrl)];
    try {
      assert.deepEqual(await refusal(), { classId: 0, methodId: 0, replyCode: 530, replyText: "NOT_ALLOWED - connection refused: node connection limit (3) is reached" });
    } finally {
      await Promise.all(open.map((c) => c.close()));
    }
    const again = await amqp.connect(broker.amqpUrl);
    await again.close();
  });

  it("refuse a user's connection past its max-connections limit, with RabbitMQ's text", async () => {
    // Set through the Broker method (the management API's user-limits route is not in this branch).
    broker.broker.putUser("limited", { password: "pw", tags: [], limits: { "max-connections": 1 } });
    broker.broker.setPermission("limited", "/", { configure: ".*", write: ".*", read: ".*" });
    const first = await amqp.connect(broker.urlFor("limited", "pw"));
    try {
      assert.deepEqual(await refusal("limited", "pw"), { classId: 0, methodId: 0, replyCode: 530, replyText: "NOT_ALLOWED - Connection refused for user 'limited': user connection limit (1) is reached" });
      const other = await amqp.connect(broker.amqpUrl);
      await other.close();
    } finally {
      await first.close();
    }
  });

  it("throttle repeated failed logins from one address, on both listeners, until the back-off passes", async () => {
    let status = 401;
    for (let i = 0; i < 12 && status === 401; i++) status = (await call("/api/whoami", basic("guest", "wrong"))).status;
    assert.equal(status, 429);
    const good = await call("/api/whoami", basic("guest", "guest"));
    assert.deepEqual([good.status, good.json!["error"]], [429, "too_many_requests"], "even good credentials wait out the back-off");
    await assert.rejects(amqp.connect(broker.amqpUrl), /ACCESS_REFUSED|403/);
  });
});
