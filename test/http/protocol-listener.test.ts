// The protocol-listener health check: RabbitMQ's aliases, every active protocol in both answers,
// 503 naming what is missing.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { listenerProtocol } from "../../src/http/protocol-aliases.js";

describe("listenerProtocol", () => {
  it("folds RabbitMQ's spellings into listener protocols and leaves other names as they are", () => {
    for (const name of ["amqp", "AMQP091", "amqp0-9-1", "amqp0.9.1", "amqp0_9_1", "amqp10", " amqp1.0 "]) assert.equal(listenerProtocol(name), "amqp", name);
    for (const name of ["http", "management", "http_api", "UI", "management_ui", "http1.1"]) assert.equal(listenerProtocol(name), "http", name);
    assert.equal(listenerProtocol("amqps"), "amqp/ssl");
    assert.equal(listenerProtocol("mqtt+tls"), "mqtt/ssl");
    assert.equal(listenerProtocol("cli"), "clustering");
    assert.equal(listenerProtocol("Gopher"), "gopher");
  });
});

describe("GET /api/health/checks/protocol-listener/{protocols}", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);
  before(async () => {
    broker = await startTestBroker();
  });
  after(async () => broker.close());

  const check = (protocols: string) => api("GET", `/api/health/checks/protocol-listener/${encodeURIComponent(protocols)}`);

  it("answers 200 with every active protocol, whichever alias was asked for", async () => {
    for (const asked of ["amqp", "amqp091", "amqp0-9-1", "management", "http_api", "ui", "amqp0-9-1,management", "AMQP,HTTP"]) {
      const res = await check(asked);
      assert.equal(res.status, 200, asked);
      assert.equal(res.json.status, "ok", asked);
      assert.deepEqual([...res.json.protocols].sort(), ["amqp", "http"], asked);
    }
  });

  it("answers 503 with the missing protocols (normalised) and the active ones", async () => {
    const res = await check("amqp,mqtts,stomp");
    assert.equal(res.status, 503);
    assert.equal(res.json.status, "failed");
    assert.equal(res.json.reason, "No active listener");
    assert.deepEqual([...res.json.missing].sort(), ["mqtt/ssl", "stomp"]);
    assert.deepEqual([...res.json.protocols].sort(), ["amqp", "http"]);
  });

  it("asks for credentials like every other endpoint", async () => {
    assert.equal((await api("GET", "/api/health/checks/protocol-listener/amqp", undefined, "guest:wrong")).status, 401);
  });
});
