// The queue_groups setting (docs/CLUSTERING.md, "Build order" step 3): flag, environment,
// rabbitmq.conf key; at least 1; refused beside --etcd-endpoints while a cluster replicates one store.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load-config.js";

describe("queue_groups setting", () => {
  it("is unset by default (the data dir decides) and read from the flag, the environment and rabbitmq.conf", () => {
    assert.equal(loadConfig([], {}).queueGroups, null);
    assert.equal(loadConfig(["--queue-groups", "4"], {}).queueGroups, 4);
    assert.equal(loadConfig([], { CONEY_QUEUE_GROUPS: "8" }).queueGroups, 8);
    const dir = mkdtempSync(join(tmpdir(), "coney-cfg-"));
    const file = join(dir, "rabbitmq.conf");
    writeFileSync(file, "queue_groups = 6\n");
    assert.equal(loadConfig(["--config", file], {}).queueGroups, 6);
  });

  it("refuses a number below 1, and more than one group in a cluster, saying why", () => {
    assert.throws(() => loadConfig(["--queue-groups", "0"], {}), /--queue-groups: '0' is not a number of groups/);
    assert.throws(() => loadConfig(["--queue-groups", "2", "--etcd-endpoints", "http://127.0.0.1:2379"], {}), /cannot be combined with --etcd-endpoints yet: a cluster replicates one message store/);
    assert.equal(loadConfig(["--queue-groups", "1", "--etcd-endpoints", "http://127.0.0.1:2379"], {}).queueGroups, 1);
  });
});
