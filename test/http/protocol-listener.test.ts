// The protocol-listener health check: RabbitMQ's aliases, RabbitMQ 3.10's answer shape, 503
// naming what is missing.
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

describe("GET /api/health/checks/protocol-listener/{protocol}", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);
  before(async () => {
    broker = await startTestBroker();
  });
  after(async () => broker.close());

  const check = (protocol: string) => api("GET", `/api/health/checks/protocol-listener/${encodeURIComponent(protocol)}`);

  // RabbitMQ 3.10's shape (issue 17): one protocol per request, named back normalised.
  it("answers 200 naming the protocol asked for, whichever alias was used", async () => {
    for (const [asked, protocol] of [["amqp", "amqp"], ["amqp091", "amqp"], ["amqp0-9-1", "amqp"], ["management", "http"], ["http_api", "http"], ["UI", "http"]]) {
      const res = await check(asked!);
      assert.equal(res.status, 200, asked);
      assert.deepEqual(res.json, { status: "ok", protocol }, asked);
    }
  });

  it("answers 503 with the missing protocol (normalised) and the active ones", async () => {
    const res = await check("mqtts");
    assert.equal(res.status, 503);
    assert.equal(res.json.status, "failed");
    assert.equal(res.json.reason, "No active listener");
    assert.equal(res.json.missing, "mqtt/ssl");
    assert.deepEqual([...res.json.protocols].sort(), ["amqp", "http"]);
  });

  it("asks for credentials like every other endpoint", async () => {
    assert.equal((await api("GET", "/api/health/checks/protocol-listener/amqp", undefined, "guest:wrong")).status, 401);
  });
});
