// PUT /api/feature-flags/{name}/enable and GET /api/feature-flags, as RabbitMQ answers them.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";

describe("feature flags", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);
  before(async () => {
    broker = await startTestBroker();
  });
  after(() => broker.close());

  const flag = async (name: string): Promise<Record<string, unknown> | undefined> =>
    ((await api("GET", "/api/feature-flags")).json as Array<Record<string, unknown>>).find((f) => f.name === name);

  it("lists RabbitMQ's flags with their state: enabled where Coney has the feature, unavailable where it does not", async () => {
    assert.deepEqual(await flag("quorum_queue"), {
      name: "quorum_queue",
      desc: "Support queues of type `quorum`",
      doc_url: "https://www.rabbitmq.com/quorum-queues.html",
      state: "enabled",
      stability: "stable",
      provided_by: "rabbit",
    });
    assert.equal((await flag("stream_queue"))?.["state"], "enabled");
  });

  it("enables a known flag with 204 and shows it enabled", async () => {
    const r = await api("PUT", "/api/feature-flags/user_limits/enable", {});
    assert.equal(r.status, 204);
    assert.equal((await flag("user_limits"))?.["state"], "enabled");
  });

  it("refuses an unknown flag, or one whose feature Coney lacks, with 400 'unsupported'", async () => {
    for (const name of ["no_such_flag", "maintenance_mode_status"]) {
      const r = await api("PUT", `/api/feature-flags/${name}/enable`, {});
      assert.equal(r.status, 400);
      assert.deepEqual(r.json, { error: "bad_request", reason: "unsupported" });
    }
    assert.equal((await flag("maintenance_mode_status"))?.["state"], "unavailable", "nothing changed");
  });

  it("takes an administrator to enable", async () => {
    assert.equal((await api("PUT", "/api/users/ff-monitor", { password: "pw", tags: "monitoring" })).status, 201);
    assert.equal((await api("PUT", "/api/feature-flags/quorum_queue/enable", {}, "ff-monitor:pw")).status, 403);
  });
});
