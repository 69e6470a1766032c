// /api/user-limits on a real broker: set, list, clear, RabbitMQ's 400s, administrators only, and
// both limits enforced on real AMQP connections (max-channels across all of the user's connections).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";

describe("user limits", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    broker = await startTestBroker();
    await api("PUT", "/api/users/app", { password: "pw", tags: "management" });
    await api("PUT", "/api/permissions/%2f/app", { configure: ".*", write: ".*", read: ".*" });
  });
  after(async () => broker.close());

  it("are set, listed, shown on the user and cleared", async () => {
    assert.deepEqual((await api("GET", "/api/user-limits")).json, []);
    assert.equal((await api("PUT", "/api/user-limits/app/max-connections", { value: 10 })).status, 204);
    assert.equal((await api("PUT", "/api/user-limits/app/max-channels", { value: 20 })).status, 204);
    assert.deepEqual((await api("GET", "/api/user-limits")).json, [{ user: "app", value: { "max-connections": 10, "max-channels": 20 } }]);
    assert.deepEqual((await api("GET", "/api/user-limits/app")).json, [{ user: "app", value: { "max-connections": 10, "max-channels": 20 } }]);
    assert.deepEqual((await api("GET", "/api/users/app")).json.limits, { "max-connections": 10, "max-channels": 20 });
    assert.equal((await api("DELETE", "/api/user-limits/app/max-connections")).status, 204);
    assert.equal((await api("DELETE", "/api/user-limits/app/max-connections")).status, 204, "as RabbitMQ: clearing an unset limit is no error");
    assert.equal((await api("DELETE", "/api/user-limits/app/max-channels")).status, 204);
    assert.deepEqual((await api("GET", "/api/user-limits/app")).json, []);
  });

  it("refuse unknown limits, non-integers, unknown users and non-administrators", async () => {
    const foo = await api("PUT", "/api/user-limits/app/max-foo", { value: 1 });
    assert.deepEqual([foo.status, foo.json.error], [400, "bad_request"]);
    assert.equal((await api("PUT", "/api/user-limits/app/max-channels", { value: "x" })).status, 400);
    assert.equal((await api("PUT", "/api/user-limits/app/max-channels", {})).status, 400);
    assert.equal((await api("PUT", "/api/user-limits/nobody/max-channels", { value: 1 })).status, 400);
    assert.deepEqual((await api("GET", "/api/user-limits/nobody")).json, [], "as RabbitMQ: an unknown user has no limits");
    assert.equal((await api("GET", "/api/user-limits", undefined, "app:pw")).status, 403);
    assert.equal((await api("PUT", "/api/user-limits/app/max-channels", { value: 1 }, "app:pw")).status, 403);
    assert.deepEqual((await api("GET", "/api/user-limits/app")).json, [], "nothing half-set");
  });

  it("enforce max-channels over all of the user's connections, and max-connections", async () => {
    assert.equal((await api("PUT", "/api/user-limits/app/max-channels", { value: 2 })).status, 204);
    const a = await amqp.connect(broker.urlFor("app", "pw"));
    const b = await amqp.connect(broker.urlFor("app", "pw"));
    try {
      await a.createChannel();
      await b.createChannel();
      const closed = new Promise<Error>((resolve) => b.on("error", resolve));
      await assert.rejects(b.createChannel());
      assert.match((await closed).message, /number of channels opened for user 'app' has reached the maximum allowed user limit of \(2\)/);
      await api("DELETE", "/api/user-limits/app/max-channels");
      await a.createChannel();

      assert.equal((await api("PUT", "/api/user-limits/app/max-connections", { value: 1 })).status, 204);
      await assert.rejects(amqp.connect(broker.urlFor("app", "pw")), /ConnectionClose/, "refused at connection.open (amqplib hides the text)");
    } finally {
      await a.close().catch(() => undefined);
      await b.close().catch(() => undefined);
      await api("DELETE", "/api/user-limits/app/max-connections");
    }
  });
});
