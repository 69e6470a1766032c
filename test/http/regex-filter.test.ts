// A list's name filter with use_regex: a valid expression filters, an invalid one is a 400 with
// RabbitMQ's error (it answered 200 with nothing before, issue 28).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";

describe("the use_regex name filter", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);
  before(async () => {
    broker = await startTestBroker();
    for (const q of ["orders", "orders.eu", "invoices"]) assert.equal((await api("PUT", `/api/queues/%2F/${q}`, {})).status, 201);
  });
  after(() => broker.close());

  it("filters by a valid expression, case-insensitively", async () => {
    const res = await api("GET", "/api/queues/%2F?page=1&use_regex=true&name=" + encodeURIComponent("^ORDERS(\\.|$)"));
    assert.equal(res.status, 200);
    assert.deepEqual((res.json.items as Array<{ name: string }>).map((q) => q.name), ["orders", "orders.eu"]);
  });

  it("answers 400 bad_request for an invalid expression, on every list", async () => {
    for (const path of ["/api/queues", "/api/queues/%2F", "/api/exchanges", "/api/connections", "/api/vhosts", "/api/users"]) {
      const res = await api("GET", `${path}?page=1&use_regex=true&name=${encodeURIComponent("orders(")}`);
      assert.equal(res.status, 400, path);
      assert.equal(res.json.error, "bad_request");
      assert.match(res.json.reason, /^Pagination parameters are invalid: 'name' is not a valid regular expression/);
    }
    const plain = await api("GET", `/api/queues?page=1&name=${encodeURIComponent("orders(")}`);
    assert.equal(plain.status, 200, "without use_regex the text is a plain substring");
    assert.equal(plain.json.filtered_count, 0);
  });
});
