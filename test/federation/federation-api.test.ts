// What operators see of federation links: GET /api/federation-links with RabbitMQ's fields for a
// running link and a link in error, the vhost and state/down filters, the monitor tag, restart by
// id, coneyctl federation_status / list_federation_links / restart_federation_link, and the
// Prometheus gauges and counters.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { ctl } from "../cli/run-coneyctl.js";

describe("federation links in the API, coneyctl and metrics", () => {
  let up: TestBroker;
  let down: TestBroker;
  const api = apiClient(() => down.httpUrl);
  type Link = Record<string, unknown>;
  const links = async (path = "/api/federation-links"): Promise<Link[]> => (await api("GET", path)).json as Link[];
  const byUpstream = async (name: string): Promise<Link | undefined> => (await links()).find((l) => l["upstream"] === name);

  before(async () => {
    up = await startTestBroker({ clusterName: "api-upstream" });
    down = await startTestBroker({ clusterName: "api-downstream", prometheusPort: 0 });
    const conn = await amqp.connect(down.amqpUrl);
    const ch = await conn.createChannel();
    await ch.assertExchange("fed.api", "direct", { durable: true });
    await conn.close();
    // One upstream that answers, one nobody listens on (port 1 refuses connections).
    assert.equal((await api("PUT", "/api/parameters/federation-upstream/%2f/good", { value: { uri: `amqp://guest:secret-never-shown@127.0.0.1:${up.amqpPort}`, "reconnect-delay": 1 } })).status, 201);
    await api("PUT", "/api/users/guest", { password: "guest", tags: "administrator" });
    assert.equal((await api("PUT", "/api/parameters/federation-upstream/%2f/bad", { value: { uri: "amqp://127.0.0.1:1", "reconnect-delay": 1 } })).status, 201);
    assert.equal((await api("PUT", "/api/policies/%2f/fed", { pattern: "^fed\\.", "apply-to": "exchanges", definition: { "federation-upstream-set": "all" } })).status, 201);
  });
  after(async () => {
    await down?.close();
    await up?.close();
  });

  it("lists running and failed links with RabbitMQ's fields", async () => {
    // The good upstream refuses guest:secret-never-shown, so make its credentials right first.
    await apiClient(() => up.httpUrl)("PUT", "/api/users/guest", { password: "secret-never-shown", tags: "administrator" });
    await eventually(async () => (await byUpstream("good"))?.["status"] === "running", 10_000, "the good link running");
    await eventually(async () => (await byUpstream("bad"))?.["status"] === "error", 10_000, "the bad link in error");
    const good = (await byUpstream("good"))!;
    assert.deepEqual(Object.keys(good), ["node", "exchange", "upstream_exchange", "type", "vhost", "upstream", "id", "status", "local_connection", "uri", "timestamp"]);
    assert.equal(good["node"], down.config.nodeName);
    assert.equal(good["exchange"], "fed.api");
    assert.equal(good["upstream_exchange"], "fed.api");
    assert.equal(good["type"], "exchange");
    assert.equal(good["vhost"], "/");
    assert.match(good["id"] as string, /^[0-9a-f]{8}$/);
    assert.equal(good["local_connection"], "Federation link (upstream: good, policy: fed)");
    assert.equal(good["uri"], `amqp://127.0.0.1:${up.amqpPort}`, "the password is never shown");
    assert.match(good["timestamp"] as string, /^\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}:\d{2}$/);
    const bad = (await byUpstream("bad"))!;
    assert.equal(bad["error"], "econnrefused");
    assert.equal(bad["local_connection"], undefined);
    // Filters: the vhost, links that are down.
    assert.equal((await links("/api/federation-links/%2f")).length, 2);
    assert.deepEqual((await links("/api/federation-links/state/down")).map((l) => l["upstream"]), ["bad"]);
    assert.deepEqual((await links("/api/federation-links/%2f/state/down")).map((l) => l["upstream"]), ["bad"]);
    assert.equal((await api("GET", "/api/federation-links/nope")).status, 404);
    // Monitors and administrators only.
    await api("PUT", "/api/users/plain", { password: "p", tags: "management" });
    await api("PUT", "/api/permissions/%2f/plain", { configure: ".*", write: ".*", read: ".*" });
    assert.equal((await api("GET", "/api/federation-links", undefined, "plain:p")).status, 403);
  });

  it("restarts a link by id over the API", async () => {
    const good = (await byUpstream("good"))!;
    const path = `/api/federation-links/vhost/%2f/${good["id"] as string}/${encodeURIComponent(good["node"] as string)}/restart`;
    assert.equal((await api("DELETE", path)).status, 204);
    await eventually(async () => (await byUpstream("good"))?.["status"] === "running", 10_000, "the link running after restart");
    assert.equal((await api("DELETE", "/api/federation-links/vhost/%2f/00000000/x/restart")).status, 404);
  });

  it("shows the links in coneyctl and restarts one", async () => {
    const all = await ctl(down, ["federation_status", "--no-table-headers", "upstream", "status", "error"]);
    assert.equal(all.code, 0, all.stderr);
    const rows = all.stdout.split("\n").filter((l) => l !== "" && !l.startsWith("Listing")).sort();
    assert.deepEqual(rows, ["bad\terror\teconnrefused", "good\trunning\t"]);
    const onlyDown = await ctl(down, ["list_federation_links", "--only-down", "-q", "--no-table-headers", "upstream"]);
    assert.equal(onlyDown.stdout.trim(), "bad");
    const good = (await byUpstream("good"))!;
    const restart = await ctl(down, ["restart_federation_link", good["id"] as string]);
    assert.equal(restart.code, 0, restart.stderr);
    const missing = await ctl(down, ["restart_federation_link", "deadbeef"]);
    assert.equal(missing.code, 70);
    assert.match(missing.stderr, /Link with the given ID was not found/);
  });

  it("exports link status and counts to Prometheus", async () => {
    await eventually(async () => (await byUpstream("good"))?.["status"] === "running", 10_000, "the good link running");
    // Bind something downstream so a message published upstream is forwarded.
    const conn = await amqp.connect(down.amqpUrl);
    const ch = await conn.createChannel();
    const { queue } = await ch.assertQueue("", { exclusive: true });
    await ch.bindQueue(queue, "fed.api", "k");
    await eventually(async () => (await apiClient(() => up.httpUrl)("GET", "/api/exchanges/%2f/fed.api/bindings/source", undefined, "guest:secret-never-shown")).json.length === 1, 15_000, "the upstream binding");
    const uconn = await amqp.connect(`amqp://guest:secret-never-shown@127.0.0.1:${up.amqpPort}`);
    const uch = await uconn.createConfirmChannel();
    uch.publish("fed.api", "k", Buffer.from("x"));
    await uch.waitForConfirms();
    await uconn.close();
    await eventually(async () => (await ch.get(queue)) !== false, 15_000, "the forwarded message");
    await conn.close();
    const text = await (await fetch(`http://127.0.0.1:${down.prometheusPort}/metrics`)).text();
    const labels = 'vhost="/",type="exchange",resource="fed.api"';
    assert.match(text, new RegExp(`coney_federation_link_status\\{${labels},upstream="good",status="running"\\} 1`));
    assert.match(text, new RegExp(`coney_federation_link_status\\{${labels},upstream="bad",status="error"\\} 1`));
    assert.match(text, new RegExp(`coney_federation_link_status\\{${labels},upstream="bad",status="running"\\} 0`));
    assert.match(text, new RegExp(`coney_federation_messages_forwarded_total\\{${labels},upstream="good"\\} 1`));
  });
});
