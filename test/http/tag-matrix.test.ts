// RabbitMQ's management tag matrix (none, management, policymaker, monitoring, administrator),
// with the spec's statuses: 401 for a failed login, 403 for an authenticated user refused.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";

const TAGS = ["none", "management", "policymaker", "monitoring", "administrator"] as const;
type Tag = (typeof TAGS)[number];
const ALL = [403, 200, 200, 200, 200];

/** [method, path (with {u} for the user's name), body, expected status per tag in TAGS order]. */
const MATRIX: ReadonlyArray<readonly [string, string, unknown, readonly number[]]> = [
  ["GET", "/api/overview", undefined, ALL],
  ["GET", "/api/whoami", undefined, ALL],
  ["GET", "/api/extensions", undefined, ALL],
  ["GET", "/api/queues", undefined, ALL],
  ["GET", "/api/exchanges/%2f", undefined, ALL],
  ["GET", "/api/bindings/%2f", undefined, ALL],
  ["GET", "/api/policies", undefined, ALL],
  ["GET", "/api/health/checks/alarms", undefined, ALL],
  ["GET", "/api/nodes", undefined, [403, 403, 403, 200, 200]],
  ["GET", "/api/users", undefined, [403, 403, 403, 403, 200]],
  ["GET", "/api/permissions", undefined, [403, 403, 403, 403, 200]],
  ["GET", "/api/definitions", undefined, [403, 403, 403, 403, 200]],
  ["PUT", "/api/vhosts/vh-{u}", {}, [403, 403, 403, 403, 201]],
  ["PUT", "/api/users/made-by-{u}", { password: "x", tags: "" }, [403, 403, 403, 403, 201]],
  ["PUT", "/api/policies/%2f/p-{u}", { pattern: "^p-", definition: { "max-length": 5 } }, [403, 403, 201, 403, 201]],
  ["GET", "/api/parameters", undefined, [403, 403, 200, 403, 200]],
  ["PUT", "/api/global-parameters/g-{u}", { value: 1 }, [403, 403, 201, 403, 201]],
  ["GET", "/api/global-parameters", undefined, [403, 403, 200, 403, 200]],
  // Resource operations need no tag beyond management: the permission patterns decide.
  ["PUT", "/api/queues/%2f/q-{u}", {}, [403, 201, 201, 201, 201]],
  ["POST", "/api/exchanges/%2f/amq.default/publish", { routing_key: "q-{u}", payload: "x", payload_encoding: "string", properties: {} }, [403, 200, 200, 200, 200]],
];

describe("the management tag matrix", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);
  const conns: ChannelModel[] = [];
  const cred = (t: Tag) => `${t}-user:pw`;

  before(async () => {
    broker = await startTestBroker();
    await api("PUT", "/api/vhosts/hidden", {});
    for (const t of TAGS) {
      assert.equal((await api("PUT", `/api/users/${t}-user`, { password: "pw", tags: t === "none" ? "" : t })).status, 201);
      assert.equal((await api("PUT", `/api/permissions/%2f/${t}-user`, { configure: ".*", write: ".*", read: ".*" })).status, 204);
      const conn = await amqp.connect(broker.urlFor(`${t}-user`, "pw"));
      conn.on("error", () => {}); // closed over HTTP below, with 320
      conns.push(conn);
    }
  });
  after(async () => {
    for (const c of conns) await c.close().catch(() => {});
    await broker.close();
  });

  it("answers each capability per tag as RabbitMQ's matrix, with the spec's 403", async () => {
    const failures: string[] = [];
    for (const [method, path, body, expected] of MATRIX) {
      for (const [i, t] of TAGS.entries()) {
        const p = path.replaceAll("{u}", t);
        const b = body === undefined ? undefined : JSON.parse(JSON.stringify(body).replaceAll("{u}", t));
        const res = await api(method, p, b, cred(t));
        if (res.status !== expected[i]) failures.push(`${t}: ${method} ${p} → ${res.status}, expected ${expected[i]}`);
        if (res.status === 403) assert.deepEqual(Object.keys(res.json ?? {}).sort(), ["error", "reason"], `${method} ${p} error body`);
      }
    }
    assert.deepEqual(failures, []);
    assert.equal((await api("GET", "/api/overview", undefined, "management-user:wrong")).status, 401);
  });

  it("shows vhosts, connections and channels by tag, and lets only owners and administrators close", async () => {
    const vhosts = async (t: Tag) => ((await api("GET", "/api/vhosts", undefined, cred(t))).json as Array<{ name: string }>).map((v) => v.name).sort();
    assert.deepEqual(await vhosts("management"), ["/"], "a management user sees the vhosts it has permissions in");
    assert.deepEqual(await vhosts("policymaker"), ["/"]);
    assert.ok((await vhosts("monitoring")).includes("hidden"), "monitoring sees every vhost");
    assert.ok((await vhosts("administrator")).includes("hidden"));
    assert.equal((await api("GET", "/api/queues/hidden", undefined, cred("management"))).status, 403);

    const users = async (t: Tag, what: string) => new Set(((await api("GET", `/api/${what}`, undefined, cred(t))).json as Array<{ user: string }>).map((c) => c.user));
    assert.deepEqual(await users("management", "connections"), new Set(["management-user"]), "own connections only");
    assert.equal((await users("monitoring", "connections")).size, TAGS.length, "monitors see every connection");
    assert.equal((await users("administrator", "connections")).size, TAGS.length);

    const all = (await api("GET", "/api/connections")).json as Array<{ name: string; user: string }>;
    const nameOf = (t: Tag) => all.find((c) => c.user === `${t}-user`)!.name;
    const enc = encodeURIComponent;
    assert.equal((await api("GET", `/api/connections/${enc(nameOf("none"))}`, undefined, cred("management"))).status, 403, "another user's connection");
    assert.equal((await api("GET", `/api/connections/${enc(nameOf("none"))}`, undefined, cred("monitoring"))).status, 200);
    assert.equal((await api("DELETE", `/api/connections/${enc(nameOf("none"))}`, undefined, cred("monitoring"))).status, 403, "monitors cannot close others'");
    const closed = new Promise((resolve) => conns[1]!.once("close", resolve));
    assert.equal((await api("DELETE", `/api/connections/${enc(nameOf("management"))}`, undefined, cred("management"))).status, 204, "owners close their own");
    await closed;
    const adminClosed = new Promise((resolve) => conns[0]!.once("close", resolve));
    assert.equal((await api("DELETE", `/api/connections/${enc(nameOf("none"))}`, undefined, cred("administrator"))).status, 204);
    await adminClosed;
  });
});
