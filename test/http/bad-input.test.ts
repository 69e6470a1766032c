// Bad requests get a clear 4xx with RabbitMQ's {error, reason} body and change nothing; names up
// to the 255-byte limit work, URL-encoded, whatever their characters.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";

describe("bad input over HTTP", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);
  before(async () => {
    broker = await startTestBroker();
  });
  after(async () => broker.close());

  it("serves names up to 255 bytes and refuses longer ones with 400", async () => {
    const long = "q".repeat(255);
    const odd = "é/~+% ünï".repeat(20); // 220 bytes of UTF-8 that need escaping
    for (const name of [long, odd]) {
      const path = `/api/queues/%2f/${encodeURIComponent(name)}`;
      assert.equal((await api("PUT", path, {})).status, 201, name);
      assert.equal((await api("GET", path)).json.name, name);
      assert.equal((await api("DELETE", path)).status, 204);
    }
    for (const kind of ["queues", "exchanges"]) {
      const res = await api("PUT", `/api/${kind}/%2f/${"n".repeat(256)}`, kind === "exchanges" ? { type: "direct" } : {});
      assert.equal(res.status, 400, kind);
      assert.deepEqual(Object.keys(res.json).sort(), ["error", "reason"]);
    }
    assert.equal((await api("PUT", `/api/vhosts/${"v".repeat(256)}`, {})).status, 400);
    assert.equal((await api("GET", "/api/queues")).json.length, 0, "nothing was created");
  });

  it("answers malformed bodies and wrong types with 400 and stores nothing", async () => {
    const raw = await fetch(`${broker.httpUrl}/api/queues/%2f/q`, {
      method: "PUT",
      headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}`, "content-type": "application/json" },
      body: "{bad json",
    });
    assert.equal(raw.status, 400);
    assert.equal(((await raw.json()) as { error: string }).error, "bad_request");
    const cases: Array<[string, string, unknown]> = [
      ["PUT", "/api/queues/%2f/q", { durable: "maybe" }],
      ["PUT", "/api/queues/%2f/q", { arguments: "x" }],
      ["PUT", "/api/queues/%2f/q", "a string"],
      ["PUT", "/api/exchanges/%2f/x", { type: "nope" }],
      ["PUT", "/api/users/u", { password: "p" }],
      ["PUT", "/api/users/u", { password: "p", tags: 5 }],
      ["PUT", "/api/permissions/%2f/guest", { configure: "(", write: ".*", read: ".*" }],
      ["PUT", "/api/permissions/%2f/guest", { configure: ".*" }],
      ["PUT", "/api/policies/%2f/p", { pattern: ".*", definition: { "max-length": -1 } }],
      ["POST", "/api/exchanges/%2f/amq.default/publish", { routing_key: "a", payload: "x", payload_encoding: "zz", properties: {} }],
    ];
    for (const [method, path, body] of cases) {
      const res = await api(method, path, body);
      assert.equal(res.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
      assert.equal(res.json.error, "bad_request");
      // RabbitMQ's reason is text, or an Erlang tuple as a JSON array (["not_boolean","maybe"]).
      assert.ok(typeof res.json.reason === "string" || (Array.isArray(res.json.reason) && res.json.reason.length === 2), JSON.stringify(res.json));
    }
    assert.equal((await api("GET", "/api/queues")).json.length, 0);
    assert.equal((await api("GET", "/api/users/u")).status, 404);
    assert.equal((await api("GET", "/api/permissions/%2f/guest")).json.configure, ".*", "an invalid pattern changed nothing");
    assert.deepEqual((await api("GET", "/api/policies")).json, []);
  });

  it("answers unknown vhosts and users with 404 Not Found, and a grant to an unknown user with 400", async () => {
    // RabbitMQ's two 404 bodies: a PUT into a missing vhost names it; a missing resource is cowboy's rewritten 404.
    const notFound = { error: "Object Not Found", reason: "Not Found" };
    for (const [method, path, body] of [
      ["PUT", "/api/queues/nope/q", { error: "not_found", reason: "vhost_not_found" }],
      ["GET", "/api/users/nobody/permissions", notFound],
      ["DELETE", "/api/users/nobody", notFound],
    ] as const) {
      const res = await api(method, path, method === "PUT" ? {} : undefined);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.deepEqual(res.json, body, `${method} ${path}`);
    }
    // RabbitMQ refuses the grant itself (the user is the object being written, not the resource looked up).
    const grant = await api("PUT", "/api/permissions/%2f/nobody", { configure: ".*", write: ".*", read: ".*" });
    assert.equal(grant.status, 400);
    assert.deepEqual(grant.json, { error: "bad_request", reason: "vhost_or_user_not_found" });
  });
});
