// The `workers` setting: --workers, CONEY_WORKERS, a JSON config file and rabbitmq.conf; `auto` is every core.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load-config.js";
import { startBroker } from "../../src/start-broker.js";

describe("the workers setting", () => {
  it("is 1 by default, and takes a count or auto from flags, environment and config files", () => {
    assert.equal(loadConfig([], {}).workers, 1);
    assert.equal(loadConfig(["--workers", "3"], {}).workers, 3);
    assert.equal(loadConfig(["--workers", "auto"], {}).workers, availableParallelism());
    assert.equal(loadConfig([], { CONEY_WORKERS: "2" }).workers, 2);
    const dir = mkdtempSync(join(tmpdir(), "coney-workers-cfg-"));
    try {
      writeFileSync(join(dir, "coney.json"), JSON.stringify({ workers: "auto" }));
      assert.equal(loadConfig(["--config", join(dir, "coney.json")], {}).workers, availableParallelism());
      writeFileSync(join(dir, "rabbitmq.conf"), "workers = 4\n");
      assert.equal(loadConfig(["--config", join(dir, "rabbitmq.conf")], {}).workers, 4);
      writeFileSync(join(dir, "bad.conf"), "workers = many\n");
      assert.throws(() => loadConfig(["--config", join(dir, "bad.conf")], {}), /line 1: workers = many: not a number of workers \(1 or more, or auto\)/);
      writeFileSync(join(dir, "bad.json"), JSON.stringify({ workers: 0 }));
      assert.throws(() => loadConfig(["--config", join(dir, "bad.json")], {}), /workers: '0' is not a number of workers/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.throws(() => loadConfig(["--workers", "0"], {}), /--workers: '0' is not a number of workers \(1 or more, or auto\)/);
    assert.throws(() => loadConfig(["--workers", "1.5"], {}), /--workers: '1\.5'/);
  });

  it("startBroker (embedding) runs one broker in its process and refuses more, saying why", async () => {
    await assert.rejects(startBroker({ workers: 2, inMemory: true, amqpPort: 0, httpPort: null, prometheusPort: null }), /startBroker runs one broker in this process; workers: 2 is the coney command's --workers/);
  });
});
