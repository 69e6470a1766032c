// A spread cluster (`--cluster-mode spread`): one broker's lists from any node, gathered over the
// node links (node queries, frame 60) — /api/connections, /api/channels and /api/consumers with
// paging, sorting and per-user visibility, one connection found and closed on another node,
// /api/overview's totals summed (each queue counted once, by its home), and another node's
// process figures and bound listeners in /api/nodes; an MQTT client id claimed through one node
// takes the session over from another; Prometheus's aggregate, /metrics/cluster, on any node is the
// sum of every node's own /metrics. Three real nodes on a real etcd; amqplib, mqtt.js.
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { ChannelModel } from "amqplib";
import { spreadCluster } from "./spread-fixture.js";
import { eventually, withTimeout } from "../helpers/wait.js";
import { parseExposition } from "../metrics/exposition-parser.js";

interface ConnRecord {
  name: string;
  node: string;
  user: string;
  client_properties: { connection_name?: string };
}
interface Page<T> {
  items: T[];
  total_count: number;
  filtered_count: number;
  item_count: number;
  page: number;
}

describe("a spread cluster: one broker's lists from any node", () => {
  const sc = spreadCluster({ metrics: true });
  const conns: ChannelModel[] = [];
  const mine = (list: ConnRecord[]): ConnRecord[] => list.filter((c) => c.client_properties.connection_name?.startsWith("lists-"));

  sc.it("connections, channels and consumers of every node from every node, paged and sorted over all of them", async () => {
    // Each named by its client (connection_name), so the test finds its own among the lists.
    const amqp = (await import("amqplib")).default;
    for (let i = 0; i < 3; i++) {
      const c = await amqp.connect(sc.cluster.url(sc.node(i)), { clientProperties: { connection_name: `lists-${i}` } });
      c.on("error", () => {});
      sc.onClose(() => c.close());
      conns.push(c);
      await c.createChannel();
    }
    // A consumer on node1 of a queue homed on node2.
    const home = await conns[2]!.createChannel();
    await home.assertQueue("lists-q", { durable: false });
    await sc.seenEverywhere("lists-q", 200);
    const consumerCh = await conns[1]!.createChannel();
    await consumerCh.consume("lists-q", () => {}, { consumerTag: "lists-consumer" });
    for (let via = 0; via < 3; via++) {
      const list = mine((await sc.api(via, "GET", "/api/connections")).json as ConnRecord[]);
      assert.deepEqual(list.map((c) => [c.client_properties.connection_name, c.node]).sort(), [0, 1, 2].map((i) => [`lists-${i}`, sc.node(i).name]), `node${via}'s /api/connections`);
      const channels = (await sc.api(via, "GET", "/api/channels")).json as Array<{ node: string; connection_details: { name: string } }>;
      for (let i = 0; i < 3; i++) assert.ok(channels.some((ch) => ch.node === sc.node(i).name), `node${via}'s /api/channels has node${i}'s`);
      const consumers = ((await sc.api(via, "GET", "/api/consumers")).json as Array<{ consumer_tag: string; queue: { name: string } }>).filter((c) => c.consumer_tag === "lists-consumer");
      assert.equal(consumers.length, 1, `node${via}'s /api/consumers lists the consumer once: ${JSON.stringify(consumers)}`);
      assert.equal(consumers[0]!.queue.name, "lists-q");
    }
    // Paging and sorting apply to the merged list.
    const all = (await sc.api(0, "GET", "/api/connections?page=1&page_size=100")).json as Page<ConnRecord>;
    const names = mine(all.items).map((c) => c.name).sort();
    assert.equal(names.length, 3);
    assert.equal(all.total_count, all.items.length);
    const page2 = (await sc.api(1, "GET", "/api/connections?page=2&page_size=2&sort=name")).json as Page<ConnRecord>;
    assert.equal(page2.page, 2);
    assert.equal(page2.total_count, all.total_count);
    assert.deepEqual(page2.items.map((c) => c.name), all.items.map((c) => c.name).sort().slice(2, 4), "page 2 of the merged, sorted list");
    const sorted = (await sc.api(1, "GET", "/api/connections?page=1&page_size=500&sort=name&sort_reverse=true")).json as Page<ConnRecord>;
    const order = sorted.items.map((c) => c.name);
    assert.deepEqual(order, [...order].sort().reverse(), "sorted over every node's connections");
    assert.deepEqual(mine(sorted.items).map((c) => c.name).sort(), names);
  });

  sc.it("a non-administrator sees only its own connections, whichever node it asks", async () => {
    for (const [path, body] of [["/api/users/lister", { password: "pw", tags: "management" }], ["/api/permissions/%2F/lister", { configure: ".*", write: ".*", read: ".*" }]] as const) {
      const r = await sc.api(0, "PUT", path, body);
      assert.ok(r.status === 201 || r.status === 204, `${path}: ${r.status} ${r.text}`);
    }
    const amqp = (await import("amqplib")).default;
    const url = `amqp://lister:pw@127.0.0.1:${sc.node(1).amqpPort}`;
    let own: ChannelModel | null = null;
    await eventually(async () => {
      own = await amqp.connect(url, { clientProperties: { connection_name: "lists-lister" } }).catch(() => null);
      return own !== null;
    }, 10_000, "lister's login on node1 (the user followed from node0)");
    own!.on("error", () => {});
    sc.onClose(() => own!.close());
    for (const via of [0, 2]) {
      // Followed from node0 through etcd, and answered there once applied (the definitions barrier).
      const r = await sc.api(via, "GET", "/api/connections", undefined, "lister:pw");
      assert.equal(r.status, 200, `node${via}: ${r.text}`);
      const seen = r.json as ConnRecord[];
      assert.deepEqual(seen.map((c) => [c.user, c.client_properties.connection_name, c.node]), [["lister", "lists-lister", sc.node(1).name]], `node${via} shows lister its own only`);
    }
  });

  sc.it("/api/overview sums the nodes: connections and channels of each, each queue once (by its home), consumers", async () => {
    const connections = ((await sc.api(0, "GET", "/api/connections")).json as unknown[]).length;
    const channels = ((await sc.api(0, "GET", "/api/channels")).json as unknown[]).length;
    const queues = ((await sc.api(0, "GET", "/api/queues")).json as unknown[]).length;
    const consumers = ((await sc.api(0, "GET", "/api/consumers")).json as unknown[]).length;
    for (let via = 0; via < 3; via++) {
      const totals = ((await sc.api(via, "GET", "/api/overview")).json as { object_totals: Record<string, number> }).object_totals;
      assert.deepEqual({ connections: totals["connections"], channels: totals["channels"], queues: totals["queues"], consumers: totals["consumers"] }, { connections, channels, queues, consumers }, `node${via}'s overview`);
    }
  });

  sc.it("/metrics/cluster on any node is the sum of every node's own /metrics, each queue once (by its home)", async () => {
    const scrape = async (i: number, path: string): Promise<Map<string, number>> => {
      const text = await (await fetch(`http://127.0.0.1:${sc.node(i).metricsPort!}${path}`)).text();
      const out = new Map<string, number>();
      for (const f of parseExposition(text)) for (const s of f.samples) out.set(`${s.name}{${Object.values(s.labels).join(",")}}`, s.value);
      return out;
    };
    const families = ["rabbitmq_queues{}", "rabbitmq_connections{}", "rabbitmq_channels{}", "rabbitmq_consumers{}", "rabbitmq_queue_messages{}", "rabbitmq_global_messages_received_total{amqp091}"];
    await eventually(async () => {
      const own = await Promise.all([0, 1, 2].map((i) => scrape(i, "/metrics")));
      const whole = await Promise.all([0, 1, 2].map((i) => scrape(i, "/metrics/cluster")));
      for (const [via, w] of whole.entries()) {
        if (w.get("coney_cluster_nodes{reporting}") !== 3) return false;
        for (const f of families) if (w.get(f) !== own.reduce((sum, o) => sum + o.get(f)!, 0)) return false;
        assert.deepEqual([0, 1, 2].map((i) => w.get(`coney_cluster_node_reporting{${sc.node(i).name}}`)), [1, 1, 1], `node${via}'s aggregate names every node`);
      }
      const totals = ((await sc.api(0, "GET", "/api/overview")).json as { object_totals: Record<string, number> }).object_totals;
      return whole.every((w) => w.get("rabbitmq_queues{}") === totals["queues"] && w.get("rabbitmq_connections{}") === totals["connections"]);
    }, 15_000, "every node's aggregate equal to the sum of the nodes' own scrapes and to the overview");
  });

  sc.it("/api/nodes on any node shows every other node's own process figures and bound listeners", async () => {
    for (let via = 0; via < 3; via++) {
      const nodes = (await sc.api(via, "GET", "/api/nodes")).json as Array<Record<string, unknown>>;
      for (let i = 0; i < 3; i++) {
        const n = nodes.find((x) => x["name"] === sc.node(i).name)!;
        assert.equal(n["running"], true);
        assert.equal(n["os_pid"], String(sc.node(i).proc!.pid), `node${i}'s os_pid on node${via}`);
        assert.ok(typeof n["mem_used"] === "number" && n["mem_used"] > 0, `node${i}'s mem_used on node${via}: ${String(n["mem_used"])}`);
        assert.ok(typeof n["fd_used"] === "number" && n["fd_used"] > 0, `node${i}'s fd_used on node${via}`);
      }
      const overview = (await sc.api(via, "GET", "/api/overview")).json as { listeners: Array<{ node: string; protocol: string; port: number }> };
      for (let i = 0; i < 3; i++) {
        const of = overview.listeners.filter((l) => l.node === sc.node(i).name);
        assert.deepEqual(of.map((l) => l.protocol).filter((p) => ["amqp", "http", "mqtt", "stomp"].includes(p)).sort(), ["amqp", "http", "mqtt", "stomp"], `node${i}'s listeners on node${via}`);
        assert.equal(of.find((l) => l.protocol === "mqtt")!.port, sc.node(i).mqttPort);
      }
    }
    const one = (await sc.api(0, "GET", `/api/nodes/${encodeURIComponent(sc.node(2).name)}`)).json as Record<string, unknown>;
    assert.equal(one["os_pid"], String(sc.node(2).proc!.pid));
  });

  sc.it("an MQTT client id claimed through another node takes the session over (MQTT 5 reason 0x8E); one connection holds it", async () => {
    const mqtt = (await import("mqtt")).default;
    const open5 = async (i: number): Promise<import("mqtt").MqttClient> => {
      const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${sc.node(i).mqttPort}`, { clientId: "spread-takeover", protocolVersion: 5, username: "guest", password: "guest", reconnectPeriod: 0 });
      c.on("error", () => {});
      sc.onClose(() => c.endAsync(true));
      return c;
    };
    const old = await open5(0);
    const disconnected = new Promise<number | undefined>((resolve) => old.once("disconnect", (pk) => resolve(pk.reasonCode)));
    const next = await open5(2);
    assert.equal(await withTimeout(disconnected, 5000, "the old connection's DISCONNECT"), 0x8e);
    const holders = async (): Promise<string[]> =>
      ((await sc.api(1, "GET", "/api/connections")).json as Array<{ node: string; client_properties: { client_id?: string } }>).filter((c) => c.client_properties.client_id === "spread-takeover").map((c) => c.node);
    await eventually(async () => (await holders()).join() === sc.node(2).name, 5000, "one connection, on node2, holds the id");
    assert.ok(next.connected, "the new connection stays");
    await next.endAsync(true);
  });

  sc.it("a connection of another node is shown and closed through this node, with its reason", async () => {
    const target = mine((await sc.api(0, "GET", "/api/connections")).json as ConnRecord[]).find((c) => c.client_properties.connection_name === "lists-2")!;
    const one = await sc.api(0, "GET", `/api/connections/${encodeURIComponent(target.name)}`);
    assert.equal(one.status, 200, one.text);
    assert.equal((one.json as ConnRecord).node, sc.node(2).name);
    const closed = new Promise<Error>((resolve) => conns[2]!.once("close", (err: Error) => resolve(err)));
    const r = await fetch(`http://127.0.0.1:${sc.node(0).httpPort}/api/connections/${encodeURIComponent(target.name)}`, { method: "DELETE", headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}`, "x-reason": "spread test closing" } });
    assert.equal(r.status, 204);
    const err = await withTimeout(closed, 10_000, "the close of lists-2");
    assert.match(String(err), /CONNECTION_FORCED - spread test closing/);
    await eventually(async () => !mine((await sc.api(1, "GET", "/api/connections")).json as ConnRecord[]).some((c) => c.name === target.name), 5000, "lists-2 gone from the lists");
  });
});
