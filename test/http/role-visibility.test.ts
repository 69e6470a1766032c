// What each RabbitMQ role sees over HTTP (RabbitMQ 3.10's rabbit_mgmt_util filter_vhost,
// list_visible_vhosts, filter_user and rabbit_mgmt_db:overview): objects and totals limited to
// the vhosts a user holds a permission in (administrators list every vhost; monitors know of
// every vhost and see the whole node in the overview), and other users' connections and
// channels only for monitors and administrators. Real broker, real AMQP clients, fetch.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";

/** Users by role: their tags and their permissions (vhost → configure, write, read). */
const USERS: Record<string, { tags: string; perms: Record<string, [string, string, string]> }> = {
  mgmt: { tags: "management", perms: { shop: ["^$", "^$", ".*"] } },
  pm: { tags: "policymaker", perms: { shop: [".*", ".*", ".*"] } },
  mon: { tags: "monitoring", perms: {} },
  boss: { tags: "administrator", perms: {} },
  quiet: { tags: "management", perms: { empty: [".*", ".*", ".*"] } },
  notag: { tags: "", perms: { shop: [".*", ".*", ".*"] } },
};

describe("what each role sees over HTTP", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);
  const conns: ChannelModel[] = [];
  const as = (user: string) => (path: string) => api("GET", path, undefined, `${user}:pw`);
  const names = async (user: string, path: string): Promise<string[]> => {
    const res = await as(user)(path);
    assert.equal(res.status, 200, `${user}: GET ${path} → ${res.status} ${JSON.stringify(res.json)}`);
    return (res.json as Array<{ name: string; vhost?: string }>).map((x) => (x.vhost !== undefined ? `${x.vhost}/${x.name}` : x.name)).sort();
  };
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await api(method, path, body);
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
  };

  before(async () => {
    broker = await startTestBroker();
    for (const v of ["shop", "hidden", "empty"]) await ok("PUT", `/api/vhosts/${v}`, {});
    for (const [user, u] of Object.entries(USERS)) {
      await ok("PUT", `/api/users/${user}`, { password: "pw", tags: u.tags });
      for (const [vhost, [configure, write, read]] of Object.entries(u.perms)) await ok("PUT", `/api/permissions/${vhost}/${user}`, { configure, write, read });
    }
    // Traffic in three vhosts: 10 messages in /, 3 in shop, 2 in hidden; a consumer in shop.
    const traffic: Array<[string, string, number]> = [["/", "root.q", 10], ["shop", "shop.q", 3], ["hidden", "hidden.q", 2]];
    for (const [vhost, queue, n] of traffic) {
      const conn = await amqp.connect(broker.urlFor("guest", "guest", vhost));
      conns.push(conn);
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue(queue);
      for (let i = 0; i < n; i++) ch.sendToQueue(queue, Buffer.from(`m${i}`));
      await ch.waitForConfirms();
      if (vhost === "shop") {
        await ch.assertQueue("shop.q2");
        await ch.consume("shop.q2", () => undefined);
      }
    }
    // The management user's own connection and channel, in the vhost it may read.
    const own = await amqp.connect(broker.urlFor("mgmt", "pw", "shop"));
    conns.push(own);
    await own.createChannel();
    for (const v of ["%2F", "shop", "hidden"]) await ok("PUT", `/api/policies/${v}/ttl-${v === "%2F" ? "root" : v}`, { pattern: "^x", definition: { "message-ttl": 1000 } });
    for (const v of ["shop", "hidden"]) await ok("PUT", `/api/vhost-limits/${v}/max-queues`, { value: 100 });
    await eventually(async () => (await api("GET", "/api/channels")).json.length === 4, 5000, "four channels open");
  });
  after(async () => {
    for (const c of conns) await c.close().catch(() => undefined);
    await broker.close();
  });

  it("limits the overview's objects, totals and rates to the user's vhosts; monitors and administrators see the node", async () => {
    const overview = async (user: string) => {
      // Chart parameters make the counters' samples part of the answer: their newest is the counter itself.
      const res = await as(user)("/api/overview?lengths_age=60&lengths_incr=5&msg_rates_age=60&msg_rates_incr=5");
      assert.equal(res.status, 200, `${user}: ${JSON.stringify(res.json)}`);
      return res.json;
    };
    const shopExchanges = (await api("GET", "/api/exchanges/shop")).json.length;
    const allExchanges = (await api("GET", "/api/exchanges")).json.length;

    const m = await overview("mgmt");
    assert.deepEqual(m.object_totals, { queues: 2, exchanges: shopExchanges, connections: 1, channels: 1 }, "shop's objects, its own connection and channel, no consumers figure");
    assert.equal(m.queue_totals.messages, 3);
    assert.equal(m.queue_totals.messages_ready, 3);
    assert.equal(m.message_stats.publish, 3, "only shop's publishes");
    assert.equal(m.message_stats.publish_details.samples[0].sample, 3, "the chart samples are shop's too");
    assert.equal(typeof m.message_stats.publish_details.rate, "number");
    assert.equal(m.queue_totals.messages_details.samples[0].sample, 3);
    for (const k of ["node", "listeners", "listeners_unbound", "contexts"]) assert.ok(!(k in m), `no ${k} for a management user`);
    assert.ok("churn_rates" in m, "churn rates are the node's for everyone, as in RabbitMQ");

    const p = await overview("pm");
    assert.deepEqual(p.object_totals, { queues: 2, exchanges: shopExchanges, connections: 0, channels: 0 });

    const q = await overview("quiet");
    assert.deepEqual(q.object_totals, { queues: 0, exchanges: (await api("GET", "/api/exchanges/empty")).json.length, connections: 0, channels: 0 });
    assert.equal(q.message_stats.publish ?? 0, 0, "no traffic in its vhost");
    assert.equal(q.message_stats.publish_details?.rate ?? 0, 0);
    assert.equal(q.queue_totals.messages, 0);

    for (const user of ["mon", "boss"]) {
      const o = await overview(user);
      assert.deepEqual(o.object_totals, { consumers: 1, queues: 4, exchanges: allExchanges, connections: 4, channels: 4 }, `${user} sees the node`);
      assert.equal(o.queue_totals.messages, 15);
      assert.equal(o.message_stats.publish, 15);
      assert.ok(Array.isArray(o.listeners) && o.listeners.length > 0, `${user} sees the listeners`);
      assert.equal(typeof o.node, "string");
    }
    assert.equal((await as("notag")("/api/overview")).status, 403);
  });

  it("lists queues, exchanges, bindings, policies and parameters of the user's vhosts; administrators list every vhost", async () => {
    assert.deepEqual(await names("mgmt", "/api/queues"), ["shop/shop.q", "shop/shop.q2"]);
    assert.deepEqual(await names("pm", "/api/queues"), ["shop/shop.q", "shop/shop.q2"]);
    assert.deepEqual(await names("mon", "/api/queues"), [], "monitors list only the vhosts they may log into (RabbitMQ's filter_vhost)");
    assert.deepEqual(await names("boss", "/api/queues"), ["//root.q", "hidden/hidden.q", "shop/shop.q", "shop/shop.q2"]);
    const paged = (await as("mgmt")("/api/queues?page=1&page_size=100")).json;
    assert.equal(paged.total_count, 2, "the paged list's totals count only what the user sees");

    const vhostsIn = async (user: string, path: string) => [...new Set(((await as(user)(path)).json as Array<{ vhost: string }>).map((x) => x.vhost))].sort();
    assert.deepEqual(await vhostsIn("mgmt", "/api/exchanges"), ["shop"]);
    assert.deepEqual(await vhostsIn("mon", "/api/exchanges"), []);
    assert.deepEqual(await vhostsIn("boss", "/api/exchanges"), ["/", "empty", "hidden", "shop"]);
    assert.deepEqual(await vhostsIn("mgmt", "/api/bindings"), ["shop"]);
    assert.deepEqual(await vhostsIn("mon", "/api/bindings"), []);
    assert.deepEqual(await vhostsIn("boss", "/api/bindings"), ["/", "hidden", "shop"]);

    assert.deepEqual(await names("mgmt", "/api/policies"), ["shop/ttl-shop"]);
    assert.deepEqual(await names("mon", "/api/policies"), []);
    assert.deepEqual(await names("boss", "/api/policies"), ["//ttl-root", "hidden/ttl-hidden", "shop/ttl-shop"]);
    assert.deepEqual(await names("mgmt", "/api/operator-policies"), []);
    assert.equal((await as("mgmt")("/api/policies/shop/ttl-shop")).status, 403, "one policy by name: policymakers (RabbitMQ's is_authorized_policies)");
    assert.equal((await as("pm")("/api/policies/shop/ttl-shop")).status, 200);
    const params = (await as("pm")("/api/parameters")).json as Array<{ vhost: string; component: string }>;
    assert.deepEqual(params.map((x) => `${x.vhost}:${x.component}`), ["shop:vhost-limits"]);
  });

  it("lets monitors know of every vhost and its limits; others only their own", async () => {
    assert.deepEqual(await names("mgmt", "/api/vhosts"), ["shop"]);
    assert.deepEqual(await names("quiet", "/api/vhosts"), ["empty"]);
    assert.deepEqual(await names("mon", "/api/vhosts"), ["/", "empty", "hidden", "shop"]);
    assert.deepEqual(await names("boss", "/api/vhosts"), ["/", "empty", "hidden", "shop"]);
    const limits = async (user: string) => ((await as(user)("/api/vhost-limits")).json as Array<{ vhost: string }>).map((l) => l.vhost).sort();
    assert.deepEqual(await limits("mgmt"), ["shop"]);
    assert.deepEqual(await limits("mon"), ["hidden", "shop"]);
    assert.equal((await as("mon")("/api/vhost-limits/hidden")).status, 200, "RabbitMQ's is_authorized_vhost_visible");
    assert.equal((await as("mgmt")("/api/vhost-limits/hidden")).status, 403);
    assert.equal((await as("mon")("/api/queues/hidden")).status, 403, "knowing of a vhost is not reading its queues");
    assert.equal((await as("boss")("/api/queues/hidden")).status, 200);
  });

  it("shows other users' connections, channels and consumers only to monitors and administrators", async () => {
    const users = async (user: string, what: string) => ((await as(user)(`/api/${what}`)).json as Array<{ user: string }>).map((c) => c.user).sort();
    assert.deepEqual(await users("mgmt", "connections"), ["mgmt"]);
    assert.deepEqual(await users("pm", "connections"), []);
    assert.deepEqual(await users("mon", "connections"), ["guest", "guest", "guest", "mgmt"]);
    assert.deepEqual(await users("boss", "connections"), ["guest", "guest", "guest", "mgmt"]);
    assert.deepEqual(await users("mgmt", "channels"), ["mgmt"]);
    assert.deepEqual(await users("mon", "channels"), ["guest", "guest", "guest", "mgmt"]);
    const consumers = async (user: string, path = "/api/consumers") => ((await as(user)(path)).json as unknown[]).length;
    assert.equal(await consumers("mgmt"), 0, "guest's consumer is not the management user's");
    assert.equal(await consumers("mgmt", "/api/consumers/shop"), 0);
    assert.equal(await consumers("mon"), 1);
    assert.equal(await consumers("boss"), 1);
    assert.deepEqual(await users("mgmt", "vhosts/shop/connections"), ["mgmt"]);
    assert.deepEqual(await users("boss", "vhosts/shop/connections"), ["guest", "mgmt"]);
    assert.equal((await as("mgmt")("/api/vhosts/hidden/connections")).status, 403);

    const guestChannel = ((await api("GET", "/api/channels")).json as Array<{ name: string; user: string }>).find((c) => c.user === "guest")!.name;
    const channel = (user: string) => as(user)(`/api/channels/${encodeURIComponent(guestChannel)}`);
    assert.equal((await channel("mgmt")).status, 403, "another user's channel is refused, not hidden as missing");
    assert.deepEqual(Object.keys((await channel("mgmt")).json).sort(), ["error", "reason"]);
    assert.equal((await channel("mon")).status, 200);
    assert.equal((await as("mgmt")("/api/channels/nope%20(1)")).status, 404);
    assert.equal((await as("mgmt")("/api/nodes")).status, 403);
    assert.equal((await as("mon")("/api/nodes")).status, 200);
  });
});
