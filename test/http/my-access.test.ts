// GET /api/coney/my-access (what the caller itself may do, decided by the broker's permission
// checker: the web UI offers actions by it) and /api/whoami's login_session_timeout.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";

describe("GET /api/coney/my-access", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    broker = await startTestBroker({ loginSessionTimeout: 30 });
    await api("PUT", "/api/vhosts/shop", {});
    await api("PUT", "/api/users/reader", { password: "pw", tags: "management" });
    await api("PUT", "/api/permissions/shop/reader", { configure: "^$", write: "", read: ".*" });
    await api("PUT", "/api/permissions/%2F/reader", { configure: "^reader\\.", write: "^reader\\.", read: "^reader\\." });
    await api("PUT", "/api/topic-permissions/shop/reader", { exchange: "amq.topic", write: "^eu\\.", read: ".*" });
    await api("PUT", "/api/users/watcher", { password: "pw", tags: "monitoring" });
  });
  after(() => broker.close());

  it("lists the caller's vhosts with its patterns and whether each kind can allow anything", async () => {
    const res = await api("GET", "/api/coney/my-access", undefined, "reader:pw");
    assert.equal(res.status, 200);
    assert.equal(res.json.user, "reader");
    assert.deepEqual(res.json.tags, ["management"]);
    assert.deepEqual(res.json.vhosts, [
      { name: "/", configure: "^reader\\.", write: "^reader\\.", read: "^reader\\.", may: { configure: true, write: true, read: true } },
      { name: "shop", configure: "^$", write: "", read: ".*", may: { configure: false, write: false, read: true } },
    ]);
    assert.deepEqual(res.json.topic_permissions, [{ user: "reader", vhost: "shop", exchange: "amq.topic", write: "^eu\\.", read: ".*" }]);
    assert.equal(res.json.checks, undefined);
    const none = await api("GET", "/api/coney/my-access", undefined, "watcher:pw");
    assert.deepEqual(none.json.vhosts, [], "a monitoring user without permissions may do nothing anywhere");
  });

  it("decides configure, write and read for named queues and exchanges in one vhost", async () => {
    const res = await api("GET", "/api/coney/my-access?vhost=%2F&queue=reader.q&queue=other&exchange=&exchange=reader.x", undefined, "reader:pw");
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.checks, {
      vhost: "/",
      queues: [
        { name: "reader.q", configure: true, write: true, read: true },
        { name: "other", configure: false, write: false, read: false },
      ],
      exchanges: [
        { name: "", configure: false, write: false, read: false },
        { name: "reader.x", configure: true, write: true, read: true },
      ],
    });
    const shop = await api("GET", "/api/coney/my-access?vhost=shop&queue=orders", undefined, "reader:pw");
    assert.deepEqual(shop.json.checks.queues, [{ name: "orders", configure: false, write: false, read: true }]);
    const elsewhere = await api("GET", "/api/coney/my-access?vhost=shop&queue=orders", undefined, "watcher:pw");
    assert.deepEqual(elsewhere.json.checks.queues, [{ name: "orders", configure: false, write: false, read: false }], "no permission in the vhost: nothing");
  });

  it("refuses bad questions with RabbitMQ's error body", async () => {
    const missing = await api("GET", "/api/coney/my-access?vhost=nope", undefined, "reader:pw");
    assert.equal(missing.status, 404);
    assert.deepEqual(Object.keys(missing.json).sort(), ["error", "reason"]);
    const twice = await api("GET", "/api/coney/my-access?vhost=shop&vhost=%2F", undefined, "reader:pw");
    assert.equal(twice.status, 400);
    const many = new URLSearchParams([["vhost", "shop"], ...Array.from({ length: 201 }, (_, i): [string, string] => ["queue", `q${i}`])]);
    assert.equal((await api("GET", `/api/coney/my-access?${many.toString()}`, undefined, "reader:pw")).status, 400);
    assert.equal((await api("GET", "/api/coney/my-access", undefined, "reader:wrong")).status, 401);
  });

  it("whoami names the configured login_session_timeout, as RabbitMQ", async () => {
    const res = await api("GET", "/api/whoami", undefined, "reader:pw");
    assert.deepEqual(res.json, { name: "reader", tags: ["management"], is_internal_user: true, login_session_timeout: 30 });
  });
});
