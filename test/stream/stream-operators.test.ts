// Stream connections as operators see them: /api/connections (protocol "stream"), the stream
// management plugin's /api/stream/connections, /publishers and /consumers with its fields,
// closing a connection from the API, coneyctl list_stream_connections / _publishers / _consumers,
// and RabbitMQ's rabbitmq_global_* counters for protocol "stream" in Prometheus.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Offset, type Client } from "rabbitmq-stream-js-client";
import { ctl } from "../cli/run-coneyctl.js";
import { apiClient } from "../helpers/http-client.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";
import { startMetricsBroker, valueOf, type MetricsBroker } from "../metrics/metrics-fixture.js";
import { streamClient } from "./stream-helpers.js";
import { RawStreamClient } from "./raw-stream-client.js";

describe("stream connections in the API, coneyctl and Prometheus", () => {
  let b: MetricsBroker & { streamPort: number };
  let client: Client;
  const api = apiClient(() => b.httpUrl);
  before(async () => {
    b = (await startMetricsBroker({ streamPort: 0 })) as MetricsBroker & { streamPort: number };
    client = await streamClient(b);
    await client.createStream({ stream: "ops" });
    const p = await client.declarePublisher({ stream: "ops", publisherRef: "ops-writer" });
    const confirmed = collector<bigint>(3);
    p.on("publish_confirm", (_e, ids) => ids.forEach((id) => confirmed.push(id)));
    for (let i = 0; i < 3; i++) await p.send(Buffer.from(`o${i}`));
    await p.flush();
    await withTimeout(confirmed.done, 5000, "confirms");
    const got = collector<string>(3);
    await client.declareConsumer({ stream: "ops", offset: Offset.first(), consumerRef: "ops-reader" }, (m) => got.push(m.content.toString()));
    await withTimeout(got.done, 5000, "deliveries");
  });
  after(async () => {
    await client?.close();
    await b?.close();
  });

  it("lists stream connections, publishers and consumers with the plugin's fields", async () => {
    const all = await api("GET", "/api/connections");
    const stream = all.json.filter((c: { protocol: string }) => c.protocol === "stream");
    assert.ok(stream.length >= 1, JSON.stringify(all.json));
    const listed = await api("GET", "/api/stream/connections");
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.json.map((c: { name: string }) => c.name).sort(), stream.map((c: { name: string }) => c.name).sort());
    assert.equal((await api("GET", "/api/stream/connections/%2F")).json.length, stream.length);
    assert.equal((await api("GET", "/api/stream/connections/no-such-vhost")).status, 404);

    const pubs = (await api("GET", "/api/stream/publishers/%2F")).json;
    const pub = pubs.find((p: { reference: string }) => p.reference === "ops-writer");
    assert.ok(pub, JSON.stringify(pubs));
    assert.deepEqual(pub.queue, { name: "ops", vhost: "/" });
    assert.equal(pub.published, 3);
    assert.equal(pub.confirmed, 3);
    assert.equal(pub.errored, 0);
    assert.equal(typeof pub.publisher_id, "number");
    assert.equal(pub.connection_details.user, "guest");

    const cons = (await api("GET", "/api/stream/consumers")).json;
    assert.equal(cons.length, 1);
    assert.deepEqual(cons[0].queue, { name: "ops", vhost: "/" });
    assert.equal(cons[0].consumed, 3);
    assert.equal(cons[0].offset, 3);
    assert.equal(cons[0].offset_lag, 0);
    assert.equal(typeof cons[0].credits, "number");
    assert.equal(cons[0].active, true);

    const conn = pub.connection_details.name as string;
    const one = await api("GET", `/api/stream/connections/%2F/${encodeURIComponent(conn)}`);
    assert.equal(one.json.protocol, "stream");
    assert.equal((await api("GET", `/api/stream/connections/%2F/${encodeURIComponent(conn)}/publishers`)).json.length, 1);
    const queue = await api("GET", "/api/queues/%2F/ops");
    assert.equal(queue.json.consumers, 1);
  });

  it("coneyctl lists stream connections, publishers and consumers", async () => {
    const conns = await ctl(b, ["list_stream_connections", "-q", "--no-table-headers", "conn_name", "user", "vhost", "connection_state"]);
    assert.equal(conns.code, 0, conns.stderr);
    assert.match(conns.stdout, /\tguest\t\/\trunning\n/);
    const pubs = await ctl(b, ["list_stream_publishers", "-q"]);
    assert.equal(pubs.code, 0, pubs.stderr);
    assert.equal(pubs.stdout.split("\n")[0], "publisher_id\tstream\treference\tmessages_published\tmessages_confirmed\tmessages_errored");
    assert.match(pubs.stdout, /\tops\tops-writer\t3\t3\t0\n/);
    const cons = await ctl(b, ["list_stream_consumers", "-q", "--no-table-headers", "stream", "messages_consumed", "offset", "offset_lag"]);
    assert.equal(cons.code, 0, cons.stderr);
    assert.equal(cons.stdout, "ops\t3\t3\t0\n");
    const missing = await ctl(b, ["list_stream_consumers", "--vhost", "nope"]);
    assert.equal(missing.code, 65);
  });

  it("counts the stream protocol in rabbitmq_global_* series", async () => {
    const m = await b.scrape();
    assert.equal(valueOf(m, "rabbitmq_global_messages_received_total", { protocol: "stream" }), 3);
    assert.equal(valueOf(m, "rabbitmq_global_messages_confirmed_total", { protocol: "stream" }), 3);
    assert.equal(valueOf(m, "rabbitmq_global_messages_delivered_total", { protocol: "stream" }), 3);
    assert.equal(valueOf(m, "rabbitmq_global_publishers", { protocol: "stream" }), 1);
    assert.equal(valueOf(m, "rabbitmq_global_consumers", { protocol: "stream" }), 1);
    assert.equal(valueOf(m, "rabbitmq_global_messages_received_total", { protocol: "amqp091" }), 0);
  });

  it("closes a stream connection from the API by closing its socket, without a Close frame (as RabbitMQ)", async () => {
    // rabbitmq-stream-js-client throws on a server's Close ("Unknown response 22"): RabbitMQ's reader sends none here.
    const raw = await RawStreamClient.login(b.streamPort);
    const before = new Set((await api("GET", "/api/stream/connections")).json.map((c: { name: string }) => c.name));
    const names = [...b.broker.connections.list()].map((c) => c.name).filter((n) => n.includes(`:${raw.socket.localPort} ->`));
    assert.equal(names.length, 1);
    assert.ok(before.has(names[0]));
    const res = await api("DELETE", `/api/stream/connections/%2F/${encodeURIComponent(names[0]!)}`, undefined, "guest:guest", { "x-reason": "maintenance" });
    assert.equal(res.status, 204);
    await raw.whenClosed();
    assert.deepEqual(raw.take(0x16), []);
    await eventually(() => b.broker.connections.get(names[0]!) === undefined, 5000, "connection gone");
  });
});
