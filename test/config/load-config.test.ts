import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load-config.js";

describe("configuration", () => {
  it("has RabbitMQ's defaults", () => {
    const c = loadConfig([], {});
    assert.equal(c.amqpPort, 5672);
    assert.equal(c.httpPort, 15672);
    assert.equal(c.dataDir, "./coney-data");
    assert.equal(c.defaultUser, "guest");
    assert.deepEqual(c.loopbackUsers, ["guest"]);
  });

  it("takes flags over environment over file", () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-cfg-"));
    const file = join(dir, "coney.json");
    writeFileSync(file, JSON.stringify({ amqpPort: 1111, httpPort: 2222, dataDir: "/from/file" }));
    const c = loadConfig(["--config", file, "--amqp-port", "3333"], { CONEY_HTTP_PORT: "4444", CONEY_LOOPBACK_USERS: "none" });
    assert.equal(c.amqpPort, 3333);
    assert.equal(c.httpPort, 4444);
    assert.equal(c.dataDir, "/from/file");
    assert.deepEqual(c.loopbackUsers, []);
    assert.equal(loadConfig(["--http-port", "off"], {}).httpPort, null);
  });

  it("refuses bad values and unknown file settings with a clear message", () => {
    assert.throws(() => loadConfig(["--amqp-port", "70000"], {}), /not a port number/);
    assert.throws(() => loadConfig([], { CONEY_HEARTBEAT: "-1" }), /CONEY_HEARTBEAT: '-1' is not a non-negative integer/);
    const dir = mkdtempSync(join(tmpdir(), "coney-cfg-"));
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ amqpPrt: 1 }));
    assert.throws(() => loadConfig(["--config", file], {}), /unknown setting 'amqpPrt'/);
  });
});
