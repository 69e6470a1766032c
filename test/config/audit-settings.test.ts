// The event exchange's and audit trail's settings: flags, environment and rabbitmq.conf keys.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readRabbitConf, RabbitConfError } from "../../src/config/rabbitmq-conf.js";
import { loadConfig } from "../../src/config/load-config.js";

describe("event exchange and audit settings", () => {
  it("defaults, flags and environment", () => {
    const d = loadConfig([], {});
    assert.deepEqual([d.eventExchange, d.eventExchangeVhost, d.auditMaxBytes, d.auditMaxAge, d.auditFileSizeLimit, d.auditSyncInterval], [true, null, 16 * 1024 * 1024, 90 * 24 * 3600, 1024 * 1024, 200]);
    const c = loadConfig(["--event-exchange", "false", "--audit-max-bytes", "5000", "--audit-sync-interval", "50"], { CONEY_EVENT_EXCHANGE_VHOST: "events", CONEY_AUDIT_MAX_AGE: "60" });
    assert.deepEqual([c.eventExchange, c.eventExchangeVhost, c.auditMaxBytes, c.auditMaxAge, c.auditSyncInterval], [false, "events", 5000, 60, 50]);
  });

  it("rabbitmq.conf: RabbitMQ's event_exchange.vhost and Coney's coney.* keys, with sizes in RabbitMQ's units", () => {
    const { settings, unsupported } = readRabbitConf(
      ["event_exchange.vhost = monitoring", "coney.event_exchange.enabled = false", "coney.audit.max_bytes = 32MiB", "coney.audit.max_age = 86400", "coney.audit.file_size_limit = 2MB", "coney.audit.sync_interval = 100"].join("\n"),
      { loopbackUsers: ["guest"] },
    );
    assert.deepEqual(unsupported, []);
    assert.deepEqual(settings, { eventExchangeVhost: "monitoring", eventExchange: false, auditMaxBytes: 32 * 1024 * 1024, auditMaxAge: 86400, auditFileSizeLimit: 2_000_000, auditSyncInterval: 100 });
    assert.throws(() => readRabbitConf("coney.audit.max_bytes = lots", { loopbackUsers: [] }), (e) => e instanceof RabbitConfError && /line 1: coney\.audit\.max_bytes = lots/.test(e.message));
  });
});
