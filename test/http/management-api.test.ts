// The management API over real HTTP (plain fetch), with an AMQP client's view of what it did.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient, RawBody } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";

describe("management API", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    broker = await startTestBroker();
  });
  after(async () => {
    await broker.close();
  });

  it("authenticates: 401 with the Basic challenge, 401 for bad credentials, 403 without a management tag", async () => {
    const none = await fetch(`${broker.httpUrl}/api/overview`);
    assert.equal(none.status, 401);
    assert.equal(none.headers.get("www-authenticate"), 'Basic realm="RabbitMQ Management"');
    const bad = await api("GET", "/api/overview", undefined, "guest:wrong");
    assert.deepEqual([bad.status, bad.json], [401, { error: "not_authorized", reason: "Login failed" }]);
    assert.equal((await api("PUT", "/api/users/plain", { password: "pw", tags: "" })).status, 201);
    const plain = await api("GET", "/api/overview", undefined, "plain:pw");
    assert.deepEqual([plain.status, (plain.json as { reason: string }).reason], [403, "Not management user"]);
    assert.equal((await api("PUT", "/api/users/mgmt", { password: "pw", tags: ["management"] })).status, 201);
    assert.equal((await api("GET", "/api/overview", undefined, "mgmt:pw")).status, 200);
    const notAdmin = await api("GET", "/api/users", undefined, "mgmt:pw");
    assert.deepEqual([notAdmin.status, (notAdmin.json as { reason: string }).reason], [403, "Not administrator user"]);
  });

  it("answers unknown paths with RabbitMQ's 404 and unsupported methods with 405 + Allow", async () => {
    const nf = await api("GET", "/api/no-such-thing");
    assert.deepEqual([nf.status, nf.json], [404, { error: "Object Not Found", reason: "Not Found" }]);
    const na = await api("PATCH", "/api/vhosts");
    assert.equal(na.status, 405);
    assert.equal(na.headers.get("allow"), "GET, HEAD, OPTIONS");
    const bad = await api("PUT", "/api/vhosts/x", new RawBody("{not json"));
    assert.equal(bad.status, 400);
    assert.match((bad.json as { reason: string }).reason, /not_json/);
  });

  it("vhosts, users and permissions: create 201, update 204, permissions PUT/DELETE 204 (spec)", async () => {
    assert.equal((await api("PUT", "/api/vhosts/v1", { description: "first" })).status, 201);
    assert.equal((await api("PUT", "/api/vhosts/v1", { description: "again" })).status, 204);
    const v = await api("GET", "/api/vhosts/v1");
    assert.equal((v.json as { description: string }).description, "again");
    // The creating user got full permissions on the new vhost, as in RabbitMQ.
    assert.deepEqual((await api("GET", "/api/permissions/v1/guest")).json, { user: "guest", vhost: "v1", configure: ".*", write: ".*", read: ".*" });
    assert.equal((await api("PUT", "/api/users/app", { password: "pw", tags: "management,monitoring" })).status, 201);
    assert.deepEqual((await api("GET", "/api/users/app")).json && ((await api("GET", "/api/users/app")).json as { tags: string[] }).tags, ["management", "monitoring"]);
    assert.equal((await api("PUT", "/api/permissions/v1/app", { configure: "^app_.*", write: "^app_.*", read: "^app_.*" })).status, 204);
    const invalid = await api("PUT", "/api/permissions/v1/app", { configure: "(", write: ".*", read: ".*" });
    assert.equal(invalid.status, 400);
    assert.match((invalid.json as { reason: string }).reason, /invalid regular expression '\('/);
    assert.equal(((await api("GET", "/api/permissions/v1/app")).json as { configure: string }).configure, "^app_.*", "unchanged");
    assert.equal((await api("PUT", "/api/permissions/nope/app", { configure: ".*", write: ".*", read: ".*" })).status, 400);
    assert.equal((await api("GET", "/api/users/app/permissions")).json instanceof Array, true);
    assert.equal((await api("DELETE", "/api/permissions/v1/app")).status, 204);
    assert.equal((await api("GET", "/api/permissions/v1/app")).status, 404);
    assert.equal((await api("DELETE", "/api/vhosts/v1")).status, 204);
    assert.equal((await api("GET", "/api/vhosts/v1")).status, 404);
  });

  it("queues: PUT, inequivalent redeclare 400, publish and get, purge, delete; amqplib sees the same queue", async () => {
    assert.equal((await api("PUT", "/api/queues/%2f/hq", { durable: true })).status, 201);
    assert.equal((await api("PUT", "/api/queues/%2f/hq", { durable: true })).status, 204);
    const ineq = await api("PUT", "/api/queues/%2f/hq", { durable: false });
    assert.deepEqual(ineq.json, { error: "bad_request", reason: "inequivalent arg 'durable' for queue 'hq' in vhost '/': received 'false' but current is 'true'" });
    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createChannel();
    ch.sendToQueue("hq", Buffer.from("from amqp"), { contentType: "text/plain", headers: { h: 1 } });
    await ch.checkQueue("hq");
    const pub = await api("POST", "/api/exchanges/%2f/amq.default/publish", { routing_key: "hq", payload: "aGk=", payload_encoding: "base64", properties: { delivery_mode: 2 } });
    assert.deepEqual(pub.json, { routed: true });
    const rec = await api("GET", "/api/queues/%2f/hq");
    assert.equal((rec.json as { messages: number }).messages, 2);
    const got = await api("POST", "/api/queues/%2f/hq/get", { count: 5, ackmode: "ack_requeue_true", encoding: "auto" });
    const items = got.json as Array<{ payload: string; properties: Record<string, unknown>; message_count: number }>;
    assert.equal(items.length, 2);
    assert.equal(items[0]!.payload, "from amqp");
    assert.deepEqual(items[0]!.properties, { content_type: "text/plain", headers: { h: 1 } });
    assert.equal(items[1]!.payload, "hi");
    assert.equal((await ch.checkQueue("hq")).messageCount, 2, "ack_requeue_true put them back");
    assert.equal((await api("DELETE", "/api/queues/%2f/hq/contents")).status, 204);
    assert.equal((await ch.checkQueue("hq")).messageCount, 0);
    const consumed = new Promise<string>((resolve) => void ch.consume("hq", (m) => resolve(m!.content.toString()), { noAck: true }));
    await api("POST", "/api/exchanges/%2f/amq.default/publish", { routing_key: "hq", payload: "to amqp", payload_encoding: "string", properties: {} });
    assert.equal(await consumed, "to amqp");
    const inUse = await api("DELETE", "/api/queues/%2f/hq?if-unused=true");
    assert.equal(inUse.status, 400);
    await conn.close();
    assert.equal((await api("DELETE", "/api/queues/%2f/hq")).status, 204);
    assert.equal((await api("DELETE", "/api/queues/%2f/hq")).status, 404);
    assert.equal((await api("PUT", "/api/queues/no-vhost/q", {})).status, 404);
  });

  it("exchanges and bindings: properties keys, Location, odd routing keys, e→e", async () => {
    assert.equal((await api("PUT", "/api/exchanges/%2f/hx", { type: "topic", durable: false })).status, 201);
    assert.equal((await api("PUT", "/api/exchanges/%2f/amq.mine", { type: "topic" })).status, 403);
    await api("PUT", "/api/queues/%2f/bq", {});
    const post = await api("POST", "/api/bindings/%2f/e/hx/q/bq", { routing_key: "a~b+c%d/e", arguments: {} });
    assert.equal(post.status, 201);
    const location = post.headers.get("location")!;
    assert.match(location, /^bq\//);
    const list = (await api("GET", "/api/bindings/%2f/e/hx/q/bq")).json as Array<{ properties_key: string; routing_key: string }>;
    assert.equal(list.length, 1);
    const key = list[0]!.properties_key;
    assert.equal((await api("GET", `/api/bindings/%2f/e/hx/q/bq/${encodeURIComponent(key)}`)).status, 200);
    await api("POST", "/api/bindings/%2f/e/hx/q/bq", { routing_key: "", arguments: {} });
    await api("POST", "/api/bindings/%2f/e/hx/q/bq", { routing_key: "k", arguments: { x: 1 } });
    const keys = ((await api("GET", "/api/bindings/%2f/e/hx/q/bq")).json as Array<{ properties_key: string }>).map((b) => b.properties_key).sort();
    assert.ok(keys.includes("~"));
    assert.ok(keys.some((k) => /^k~[A-Za-z0-9_-]{6}$/.test(k)));
    assert.equal((await api("DELETE", `/api/bindings/%2f/e/hx/q/bq/${encodeURIComponent(key)}`)).status, 204);
    assert.equal((await api("DELETE", "/api/bindings/%2f/e/hx/q/bq/~")).status, 204);
    assert.equal(((await api("GET", "/api/bindings/%2f/e/hx/q/bq")).json as unknown[]).length, 1);
    assert.deepEqual((await api("GET", "/api/bindings/%2f/e/amq.default/q/bq")).json, [
      { source: "", vhost: "/", destination: "bq", destination_type: "queue", routing_key: "bq", arguments: {}, properties_key: "bq" },
    ]);
    assert.equal((await api("POST", "/api/bindings/%2f/e/hx/e/amq.fanout", { routing_key: "r" })).status, 201);
    assert.equal(((await api("GET", "/api/exchanges/%2f/hx/bindings/source")).json as unknown[]).length, 2);
    assert.equal(((await api("GET", "/api/exchanges/%2f/amq.fanout/bindings/destination")).json as unknown[]).length, 1);
    assert.equal((await api("DELETE", "/api/exchanges/%2f/hx?if-unused=true")).status, 400);
    assert.equal((await api("DELETE", "/api/exchanges/%2f/hx")).status, 204);
  });

  it("paging, sorting, filtering and columns", async () => {
    for (let i = 0; i < 7; i++) await api("PUT", `/api/queues/%2f/page-${i}`, {});
    const p = (await api("GET", "/api/queues/%2f?page=2&page_size=3&name=page-&sort=name&sort_reverse=true&columns=name,messages")).json as {
      items: Array<Record<string, unknown>>;
      page_count: number;
      filtered_count: number;
      item_count: number;
    };
    assert.equal(p.filtered_count, 7);
    assert.equal(p.page_count, 3);
    assert.deepEqual(p.items.map((i) => i["name"]), ["page-3", "page-2", "page-1"]);
    assert.deepEqual(Object.keys(p.items[0]!).sort(), ["messages", "name"]);
    assert.equal((await api("GET", "/api/queues?page=1&page_size=501")).status, 400);
    assert.equal((await api("GET", "/api/queues?page=99")).status, 400);
    assert.equal((await api("GET", "/api/queues?page=0")).status, 400);
    const re = (await api("GET", "/api/queues/%2f?page=1&name=PAGE-[0-2]$&use_regex=true")).json as { filtered_count: number };
    assert.equal(re.filtered_count, 3);
  });

  it("connections and channels are listed live and closed with 320 and the X-Reason", async () => {
    const conn = await amqp.connect(broker.amqpUrl);
    await conn.createChannel();
    let conns: Array<{ name: string; user: string; protocol: string; channels: number; client_properties: Record<string, unknown> }> = [];
    await eventually(async () => {
      conns = (await api("GET", "/api/connections")).json as typeof conns;
      return conns.length === 1 && conns[0]!.channels === 1;
    }, 3000, "the connection listed");
    assert.equal(conns[0]!.protocol, "AMQP 0-9-1");
    assert.equal(conns[0]!.user, "guest");
    assert.match(conns[0]!.name, /^127\.0\.0\.1:\d+ -> 127\.0\.0\.1:\d+$/);
    assert.ok(conns[0]!.client_properties["product"]);
    const chans = (await api("GET", "/api/channels")).json as Array<{ name: string; number: number }>;
    assert.equal(chans[0]!.name, `${conns[0]!.name} (1)`);
    const closed = new Promise<{ code?: number; message?: string }>((resolve) => conn.on("close", resolve));
    conn.on("error", () => {});
    assert.equal((await api("DELETE", `/api/connections/${encodeURIComponent(conns[0]!.name)}`, undefined, "guest:guest", { "x-reason": "maintenance" })).status, 204);
    const err = await closed;
    assert.equal(err.code, 320);
    assert.match(String(err.message), /CONNECTION_FORCED - maintenance/);
  });

  it("overview, nodes and health checks report live figures", async () => {
    const o = (await api("GET", "/api/overview")).json as Record<string, Record<string, number>>;
    assert.ok(o["object_totals"]!["queues"]! >= 7);
    assert.ok(typeof o["message_stats"]!["publish"] === "number");
    const [n] = (await api("GET", "/api/nodes")).json as Array<Record<string, number | boolean>>;
    assert.ok((n!["mem_used"] as number) > 0 && (n!["disk_free"] as number) > 0);
    // This process's own figures: its event loop holds at least the two listeners and this request.
    assert.ok((n!["proc_used"] as number) >= 3 && (n!["proc_used"] as number) <= (n!["proc_total"] as number));
    assert.ok((n!["fd_used"] as number) > 0 && (n!["fd_used"] as number) <= (n!["fd_total"] as number));
    assert.ok((n!["processors"] as number) >= 1);
    assert.deepEqual((await api("GET", "/api/health/checks/alarms")).json, { status: "ok" });
    assert.deepEqual((await api("GET", "/api/aliveness-test/%2f")).json, { status: "ok" });
    assert.equal((await api("GET", "/api/health/checks/certificate-expiration/1/fortnights")).status, 400);
    assert.equal((await api("GET", `/api/health/checks/port-listener/${broker.amqpPort}`)).status, 200);
    assert.equal((await api("GET", "/api/health/checks/port-listener/1")).status, 503);
    assert.deepEqual((await api("GET", "/api/whoami")).json, { name: "guest", tags: ["administrator"], is_internal_user: true });
  });
});
