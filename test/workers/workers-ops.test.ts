// Operators see one broker under `coney --workers 2` (preview): /api/connections, /api/channels,
// /api/consumers and their per-vhost and per-connection views answer the whole broker from either
// worker (each record with the `node` that holds it), paged and sorted over the whole set; a
// connection on the other worker is shown and closed through any worker; /api/overview's totals
// are the sums over the workers (queues counted once); a non-administrator sees only its own
// connections, on both workers; an MQTT client id connecting on one worker takes the session over
// from the other worker (MQTT 5 reason 0x8E). Real process tree, real amqplib and mqtt.js clients.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import amqp, { type Channel, type ChannelModel } from "amqplib";
import mqtt, { type MqttClient } from "mqtt";
import { eventually, withTimeout } from "../helpers/wait.js";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";
import { run } from "../cli/run-coneyctl.js";

/** Records of many shapes, read by the assertions below (as test/helpers/http-client.ts's `json`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** An HTTP client pinned to one worker: one kept-alive socket, so every request reaches the worker that accepted it. */
class PinnedApi {
  readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  node = "";
  constructor(private readonly port: number) {}

  request(method: string, path: string, credentials = "guest:guest", headers: Record<string, string> = {}, body?: unknown): Promise<{ status: number; json: Json }> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request({ host: "127.0.0.1", port: this.port, path, method, agent: this.agent, auth: credentials, headers: { "content-type": "application/json", ...headers } }, (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : undefined }));
      });
      req.on("error", reject);
      req.end(payload);
    });
  }

  async get(path: string, credentials?: string): Promise<Json> {
    const r = await this.request("GET", path, credentials);
    assert.equal(r.status, 200, `GET ${path} on ${this.node}: ${JSON.stringify(r.json)}`);
    return r.json;
  }
}

const names = (list: Array<{ name: string }>): string[] => list.map((x) => x.name).sort();
const consumerKeys = (list: Array<{ consumer_tag: string; channel_details: { name: string } }>): string[] => list.map((c) => `${c.channel_details.name}/${c.consumer_tag}`).sort();

describe("coney --workers 2: operators see one broker", () => {
  let p: WorkersProcess;
  let mqttPort = 0;
  /** One pinned API client per worker, by node name. */
  const apis = new Map<string, PinnedApi>();
  const open: ChannelModel[] = [];
  /** The AMQP connections this test opened, by connection_name → node. */
  const nodeOf = new Map<string, string>();
  const mqttClients: MqttClient[] = [];

  const connect = async (name: string, user = "guest:guest"): Promise<{ conn: ChannelModel; ch: Channel }> => {
    const conn = await amqp.connect(`amqp://${user}@127.0.0.1:${p.amqpPort}`, { clientProperties: { connection_name: name } });
    conn.on("error", () => {});
    open.push(conn);
    const ch = await conn.createChannel();
    return { conn, ch };
  };
  const anyApi = (): PinnedApi => apis.values().next().value!;
  const wholeList = async (): Promise<Array<{ name: string; node: string; user: string; client_properties: { connection_name?: string } }>> => anyApi().get("/api/connections");

  before(async () => {
    p = await startWorkers(["--in-memory"]);
    mqttPort = p.lines.find((l) => l.msg === "Coney started")!["mqtt_port"] as number;
    // One pinned client per worker: new sockets until each worker holds one (the primary hands them out round-robin).
    for (let i = 0; i < 20 && apis.size < 2; i++) {
      const api = new PinnedApi(p.httpPort);
      api.node = (await api.get("/api/overview")).node as string;
      if (apis.has(api.node)) api.agent.destroy();
      else apis.set(api.node, api);
    }
    assert.equal(apis.size, 2, "an API client on each worker");
    const admin = anyApi();
    assert.ok([201, 204].includes((await admin.request("PUT", "/api/users/ops-bob", undefined, {}, { password: "bob", tags: "management" })).status));
    assert.ok([201, 204].includes((await admin.request("PUT", "/api/permissions/%2F/ops-bob", undefined, {}, { configure: ".*", write: ".*", read: ".*" })).status));
    // The definitions reach the other worker over IPC: ops-bob can log in through either one.
    // (Asked as guest: a failed login would be throttled.)
    for (const api of apis.values()) await eventually(async () => (await api.request("GET", "/api/permissions/%2F/ops-bob")).status === 200, 5000, `ops-bob known on ${api.node}`);
    // Connections until each worker holds at least two of guest's and one of ops-bob's, each with a channel and a consumer.
    for (let i = 0; i < 40; i++) {
      const perNode = (user: string): Map<string, number> => {
        const m = new Map<string, number>();
        for (const [name, node] of nodeOf) if (name.startsWith(user)) m.set(node, (m.get(node) ?? 0) + 1);
        return m;
      };
      const guests = perNode("guest-"), bobs = perNode("bob-");
      const guestDone = guests.size === 2 && [...guests.values()].every((n) => n >= 2);
      const bobDone = bobs.size === 2;
      if (guestDone && bobDone) break;
      const bob = guestDone;
      const name = bob ? `bob-${i}` : `guest-${i}`;
      const { ch } = await connect(name, bob ? "ops-bob:bob" : "guest:guest");
      const queue = `ops-q-${i}`;
      await ch.assertQueue(queue);
      await ch.consume(queue, () => {}, { consumerTag: `tag-${i}` });
      let node: string | undefined;
      await eventually(async () => {
        node = (await wholeList()).find((c) => c.client_properties.connection_name === name)?.node;
        return node !== undefined;
      }, 10_000, `connection ${name} listed`);
      nodeOf.set(name, node!);
    }
  });
  after(async () => {
    for (const c of mqttClients) c.end(true);
    await Promise.all(open.map((c) => withTimeout(c.close(), 2000, "a connection's close").catch(() => {})));
    for (const api of apis.values()) api.agent.destroy();
    await p.close();
  });

  it("lists every connection, channel and consumer from either worker, each with its node", async () => {
    const seen = new Map<string, { conns: string[]; chans: string[]; cons: string[]; vconns: string[]; vchans: string[]; vcons: string[] }>();
    for (const [node, api] of apis) {
      const conns = await api.get("/api/connections");
      // Every connection this test opened is there, on the worker that holds it.
      for (const [name, at] of nodeOf) assert.equal(conns.find((c: Json) => c.client_properties.connection_name === name)?.node, at, `${name} from ${node}`);
      assert.deepEqual(new Set(conns.map((c: Json) => c.node)), new Set(apis.keys()), "connections on both workers");
      seen.set(node, {
        conns: names(conns),
        chans: names(await api.get("/api/channels")),
        cons: consumerKeys(await api.get("/api/consumers")),
        vconns: names(await api.get("/api/vhosts/%2F/connections")),
        vchans: names(await api.get("/api/vhosts/%2F/channels")),
        vcons: consumerKeys(await api.get("/api/consumers/%2F")),
      });
    }
    const [a, b] = [...seen.values()];
    assert.deepEqual(a, b, "both workers answer the same sets");
    assert.equal(a!.chans.length, nodeOf.size, "one channel per connection");
    assert.equal(a!.cons.length, nodeOf.size, "one consumer per connection");
    assert.deepEqual(a!.vconns, a!.conns);
  });

  it("pages and sorts over the whole set", async () => {
    for (const api of apis.values()) {
      const all = names(await api.get("/api/connections"));
      const pages: string[] = [];
      let page = 1, pageCount = 1;
      do {
        const r = await api.get(`/api/connections?page=${page}&page_size=2&sort=name&columns=name,node`);
        assert.equal(r.total_count, all.length);
        assert.equal(r.filtered_count, all.length);
        assert.ok(r.items.length <= 2);
        assert.deepEqual(Object.keys(r.items[0]).sort(), ["name", "node"]);
        pages.push(...r.items.map((x: { name: string }) => x.name));
        pageCount = r.page_count;
        page++;
      } while (page <= pageCount);
      assert.deepEqual(pages, all, "the pages, in order, are the whole sorted list");
      const reversed = await api.get("/api/channels?page=1&page_size=500&sort=name&sort_reverse=true");
      assert.deepEqual(reversed.items.map((x: { name: string }) => x.name), [...reversed.items.map((x: { name: string }) => x.name)].sort().reverse());
      // The name filter reaches the other worker's records too.
      const remote = (await api.get("/api/connections")).find((c: { node: string }) => c.node !== api.node);
      const filtered = await api.get(`/api/connections?page=1&page_size=100&name=${encodeURIComponent(remote.name)}`);
      assert.equal(filtered.filtered_count, 1);
      assert.equal(filtered.total_count, all.length);
      assert.equal(filtered.items[0].node, remote.node);
    }
  });

  it("coneyctl list_connections, list_channels and list_consumers list the whole broker", async () => {
    const all = await wholeList();
    const ctl = (args: string[]) => run(["--port", String(p.httpPort), "--quiet", "--no-table-headers", ...args]);
    const conns = await ctl(["list_connections", "name", "node"]);
    assert.equal(conns.code, 0, conns.stderr);
    const rows = conns.stdout.trim().split("\n").map((l) => l.split("\t"));
    assert.deepEqual(rows.map((r) => r[0]).sort(), names(all));
    assert.deepEqual(new Set(rows.map((r) => r[1])), new Set(apis.keys()), "the node column names both workers");
    const chans = await ctl(["list_channels", "name"]);
    assert.equal(chans.stdout.trim().split("\n").length, names(await anyApi().get("/api/channels")).length);
    const cons = await ctl(["list_consumers", "consumer_tag"]);
    assert.deepEqual(cons.stdout.trim().split("\n").sort(), (await anyApi().get("/api/consumers/%2F")).map((c: Json) => c.consumer_tag).sort());
  });

  it("shows a connection held by the other worker, its channels and a channel with its consumers", async () => {
    for (const [node, api] of apis) {
      const remote = (await api.get("/api/connections")).find((c: Json) => c.node !== node && c.client_properties.connection_name?.startsWith("guest-"));
      assert.ok(remote, `a connection on the other worker, seen from ${node}`);
      const one = await api.get(`/api/connections/${encodeURIComponent(remote.name)}`);
      assert.equal(one.node, remote.node);
      assert.equal(one.name, remote.name);
      const chans = await api.get(`/api/connections/${encodeURIComponent(remote.name)}/channels`);
      assert.equal(chans.length, 1);
      assert.equal(chans[0].node, remote.node);
      const ch = await api.get(`/api/channels/${encodeURIComponent(chans[0].name)}`);
      assert.equal(ch.connection_details.name, remote.name);
      assert.equal(ch.consumer_details.length, 1);
      assert.equal((await api.request("GET", "/api/connections/no-such-connection")).status, 404);
    }
  });

  it("sums /api/overview's totals over the workers, counting each queue once", async () => {
    // A message waiting in one queue per worker-led queue: ready counts are the leaders'.
    const { ch } = await connect("guest-overview-publisher");
    await ch.assertQueue("ops-ready-a");
    await ch.assertQueue("ops-ready-b");
    for (const q of ["ops-ready-a", "ops-ready-b"]) ch.sendToQueue(q, Buffer.from("x"));
    for (const api of apis.values()) {
      await eventually(async () => {
        const [ov, conns, chans, cons, queues] = await Promise.all(["/api/overview", "/api/connections", "/api/channels", "/api/consumers", "/api/queues"].map((x) => api.get(x)));
        const t = ov.object_totals;
        const ready = queues.reduce((n: number, q: { messages_ready?: number }) => n + (q.messages_ready ?? 0), 0);
        // Each publish counted once: by the worker whose client published it.
        return t.connections === conns.length && t.channels === chans.length && t.consumers === cons.length && t.queues === queues.length && ov.queue_totals.messages_ready === ready && ready === 2 && ov.message_stats.publish === 2;
      }, 10_000, `overview totals equal the lists on ${api.node}`);
    }
  });

  it("sums an exchange's message_stats over the workers its publishers are connected to", async () => {
    // A publisher on each worker, each publishing 3 messages through one exchange.
    const byNode = new Map<string, Channel>();
    for (let i = 0; i < 20 && byNode.size < 2; i++) {
      const name = `guest-pub-${i}`;
      const { ch } = await connect(name);
      let node: string | undefined;
      await eventually(async () => ((node = (await wholeList()).find((c) => c.client_properties.connection_name === name)?.node), node !== undefined), 10_000, `${name} listed`);
      if (!byNode.has(node!)) byNode.set(node!, ch);
    }
    assert.equal(byNode.size, 2, "a publisher on each worker");
    for (const ch of byNode.values()) {
      await ch.assertExchange("ops-x", "fanout", { durable: false });
      await ch.assertQueue("ops-x-q");
      await ch.bindQueue("ops-x-q", "ops-x", "");
    }
    for (const ch of byNode.values()) for (let i = 0; i < 3; i++) ch.publish("ops-x", "", Buffer.from("m"));
    for (const api of apis.values()) {
      await eventually(async () => {
        const one = await api.get("/api/exchanges/%2F/ops-x");
        const listed = (await api.get("/api/exchanges/%2F?page=1&page_size=100&name=ops-x")).items[0];
        return one.message_stats?.publish_in === 6 && one.message_stats?.publish_out === 6 && listed?.message_stats?.publish_in === 6;
      }, 10_000, `ops-x's message_stats summed on ${api.node}`);
    }
  });

  it("shows a non-administrator its own connections on both workers, and refuses another's", async () => {
    const guestConn = [...nodeOf].find(([name]) => name.startsWith("guest-"))![0];
    const all = await wholeList();
    const guestName = all.find((c) => c.client_properties.connection_name === guestConn)!.name;
    for (const api of apis.values()) {
      const mine = await api.get("/api/connections", "ops-bob:bob");
      assert.ok(mine.length >= 2);
      assert.ok(mine.every((c: { user: string }) => c.user === "ops-bob"));
      assert.deepEqual(new Set(mine.map((c: { node: string }) => c.node)), new Set(apis.keys()), "bob's connections on both workers");
      const chans = await api.get("/api/channels", "ops-bob:bob");
      assert.ok(chans.length >= 2 && chans.every((c: { user: string }) => c.user === "ops-bob"));
      const ov = await api.get("/api/overview", "ops-bob:bob");
      assert.equal(ov.object_totals.connections, mine.length);
      for (const method of ["GET", "DELETE"]) {
        const r = await api.request(method, `/api/connections/${encodeURIComponent(guestName)}`, "ops-bob:bob");
        assert.equal(r.status, 403, `${method} of guest's connection by ops-bob`);
        assert.equal(r.json.reason, "User not authorised to access object");
      }
    }
  });

  it("closes a connection held by the other worker, with the X-Reason", async () => {
    const victimName = "guest-victim";
    const { conn } = await connect(victimName);
    const record = await (async () => {
      let r: { name: string; node: string } | undefined;
      await eventually(async () => ((r = (await wholeList()).find((c) => c.client_properties.connection_name === victimName)), r !== undefined), 10_000, "the victim listed");
      return r!;
    })();
    const other = [...apis].find(([node]) => node !== record.node)![1];
    const closed = new Promise<Error>((resolve) => conn.once("close", (err: Error) => resolve(err)));
    const r = await other.request("DELETE", `/api/connections/${encodeURIComponent(record.name)}`, undefined, { "x-reason": "moved by ops" });
    assert.equal(r.status, 204);
    const err = await withTimeout(closed, 5000, "the client's close");
    assert.match(String(err), /CONNECTION_FORCED - moved by ops/);
    await eventually(async () => !(await other.get("/api/connections")).some((c: { name: string }) => c.name === record.name), 5000, "gone from the list");
  });

  it("closes every connection of a user on both workers (DELETE /api/connections/username/{user})", async () => {
    const bobs = (await wholeList()).filter((c) => c.user === "ops-bob");
    assert.deepEqual(new Set(bobs.map((c) => c.node)), new Set(apis.keys()), "ops-bob connected to both workers");
    const r = await anyApi().request("DELETE", "/api/connections/username/ops-bob", undefined, { "x-reason": "user retired" });
    assert.equal(r.status, 204);
    for (const api of apis.values()) await eventually(async () => !(await api.get("/api/connections")).some((c: { user: string }) => c.user === "ops-bob"), 5000, `ops-bob's connections gone, seen from ${api.node}`);
  });

  it("takes an MQTT client id's session over from the other worker (MQTT 5 reason 0x8E)", async () => {
    const clientId = "ops-takeover";
    const nodeOfClient = async (c: MqttClient): Promise<string> => {
      const port = (c.stream as unknown as { localPort: number }).localPort;
      let node: string | undefined;
      await eventually(async () => ((node = (await wholeList()).find((x: Json) => x.peer_port === port)?.node), node !== undefined), 10_000, "the MQTT connection listed");
      return node!;
    };
    const open5 = async (): Promise<MqttClient> => {
      const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { clientId, protocolVersion: 5, username: "guest", password: "guest", reconnectPeriod: 0 });
      c.on("error", () => {});
      mqttClients.push(c);
      return c;
    };
    let old = await open5();
    let oldNode = await nodeOfClient(old);
    // Connect again under the same id until the new connection lands on the other worker (one on the same worker is a local takeover).
    for (let i = 0; i < 10; i++) {
      const disconnected = new Promise<number | undefined>((resolve) => old.once("disconnect", (pk) => resolve(pk.reasonCode)));
      const next = await open5();
      const nextNode = await nodeOfClient(next);
      assert.equal(await withTimeout(disconnected, 5000, "the old connection's DISCONNECT"), 0x8e);
      if (nextNode !== oldNode) {
        await eventually(async () => (await wholeList()).filter((x: Json) => x.client_properties?.client_id === clientId).length === 1, 5000, "one connection holds the id");
        assert.ok(next.connected, "the new connection stays");
        return;
      }
      old = next;
      oldNode = nextNode;
    }
    assert.fail("no MQTT connection landed on the other worker in 10 tries");
  });

  it("still answers when the other worker is stopped, with what it holds itself", async () => {
    const [node, otherNode] = [...apis.keys()] as [string, string];
    const api = apis.get(node)!;
    const nodes = (await api.get("/api/nodes")) as Array<{ name: string; os_pid: number }>;
    const pid = nodes.find((n) => n.name === otherNode)!.os_pid;
    process.kill(pid, "SIGSTOP");
    try {
      const started = Date.now();
      const list = (await api.get("/api/connections")) as Array<{ node: string }>;
      const waited = Date.now() - started;
      assert.ok(list.length > 0 && list.every((c) => c.node === node), "only the answering worker's connections");
      assert.ok(waited < 2500, `answered within the IPC timeout (1 s), took ${waited} ms`);
      const ov = await api.get("/api/overview");
      assert.equal(ov.object_totals.connections, list.length);
    } finally {
      process.kill(pid, "SIGCONT");
    }
  });
});
