// Unit tests of where coneyctl connects: flags over CONEY_* variables over defaults.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { resolveConnection } from "../../src/cli/connection-options.js";

describe("coneyctl connection options", () => {
  it("defaults reach a local broker as guest", () => {
    const c = resolveConnection({}, {});
    assert.deepEqual([c.host, c.port, c.username, c.password, c.tls, c.insecure, c.timeoutMs], ["127.0.0.1", 15672, "guest", "guest", false, false, 60_000]);
  });

  it("CONEY_* variables override the defaults and flags override the variables", () => {
    const env = { CONEY_HOST: "mq.example", CONEY_PORT: "15673", CONEY_USERNAME: "ops", CONEY_PASSWORD: "env-pw", CONEY_USE_TLS: "true" };
    const fromEnv = resolveConnection({}, env);
    assert.deepEqual([fromEnv.host, fromEnv.port, fromEnv.username, fromEnv.password, fromEnv.tls], ["mq.example", 15673, "ops", "env-pw", true]);
    const fromFlags = resolveConnection({ host: "other", port: "1234", username: "me", password: "flag-pw", timeout: "2.5" }, env);
    assert.deepEqual([fromFlags.host, fromFlags.port, fromFlags.username, fromFlags.password, fromFlags.timeoutMs], ["other", 1234, "me", "flag-pw", 2500]);
  });

  it("rabbitmqctl's -n rabbit@host is a host flag: over CONEY_HOST, under --host", () => {
    assert.equal(resolveConnection({ node: "rabbit@mq1" }, { CONEY_HOST: "mq3" }).host, "mq1");
    assert.equal(resolveConnection({ node: "rabbit@mq1", host: "mq2" }, {}).host, "mq2");
    assert.equal(resolveConnection({ node: "rabbit" }, {}).host, "127.0.0.1");
  });

  it("refuses a port or timeout that is not one", () => {
    assert.throws(() => resolveConnection({ port: "http" }, {}), /invalid port 'http'/);
    assert.throws(() => resolveConnection({ port: "70000" }, {}), /invalid port '70000'/);
    assert.throws(() => resolveConnection({ timeout: "0" }, {}), /invalid timeout '0'/);
  });
});
