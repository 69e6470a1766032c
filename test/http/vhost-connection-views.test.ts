// A vhost's connections and channels (issue 47, point 8): a monitor, who sees every connection
// under /api/connections, sees a vhost's share too without permissions there; a management user
// without access is still refused; the views page like /api/connections (the UI's list asks for pages).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { apiClient } from "../helpers/http-client.js";

describe("a vhost's connections and channels", () => {
  const f = useBrokerWithConnection();
  const api = apiClient(() => f.broker.httpUrl);

  it("shows a monitor a vhost it holds no permission in, pages it, and refuses others", async () => {
    assert.ok((await api("PUT", "/api/vhosts/far", {})).status < 300);
    assert.ok((await api("PUT", "/api/users/mon", { password: "pw", tags: "monitoring" })).status < 300);
    assert.ok((await api("PUT", "/api/users/mgr", { password: "pw", tags: "management" })).status < 300);
    const conn = await amqp.connect(f.broker.urlFor("guest", "guest", "far"));
    try {
      await conn.createChannel();
      for (const kind of ["connections", "channels"]) {
        const plain = await api("GET", `/api/vhosts/far/${kind}`, undefined, "mon:pw");
        assert.equal(plain.status, 200, kind);
        assert.equal((plain.json as { vhost: string }[]).length, 1);
        const paged = await api("GET", `/api/vhosts/far/${kind}?page=1&page_size=10`, undefined, "mon:pw");
        assert.equal(paged.json.total_count, 1, `${kind} paged`);
        assert.equal(paged.json.items[0].vhost, "far");
        assert.equal((await api("GET", `/api/vhosts/far/${kind}`, undefined, "mgr:pw")).status, 403, `${kind} refused without access`);
        assert.equal((await api("GET", `/api/vhosts/nowhere/${kind}`, undefined, "mon:pw")).status, 404);
      }
    } finally {
      await conn.close();
    }
  });
});
