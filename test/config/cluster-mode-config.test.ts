// The spread cluster's settings (docs/CLUSTERING.md, "A spread cluster over etcd"): cluster_mode
// (replicated by default; spread only with etcd) and the leader locator new queues are placed with,
// also as RabbitMQ's rabbitmq.conf keys queue_leader_locator and queue_master_locator.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load-config.js";

const ETCD = ["--etcd-endpoints", "http://127.0.0.1:2379"];

function confFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "coney-cfg-")), "rabbitmq.conf");
  writeFileSync(file, text);
  return file;
}

describe("cluster_mode and the queue leader locator", () => {
  it("default to today's replicated cluster and client-local placement", () => {
    const c = loadConfig(ETCD, {});
    assert.equal(c.clusterMode, "replicated");
    assert.equal(c.queueLeaderLocator, "client-local");
  });

  it("read spread and balanced from the flags and the environment", () => {
    const c = loadConfig([...ETCD, "--cluster-mode", "spread", "--queue-leader-locator", "balanced"], {});
    assert.equal(c.clusterMode, "spread");
    assert.equal(c.queueLeaderLocator, "balanced");
    assert.equal(loadConfig(ETCD, { CONEY_CLUSTER_MODE: "spread" }).clusterMode, "spread");
  });

  it("refuse spread without etcd, an unknown mode and an unknown locator, saying why", () => {
    assert.throws(() => loadConfig(["--cluster-mode", "spread"], {}), /--cluster-mode spread needs --etcd-endpoints/);
    assert.throws(() => loadConfig([...ETCD, "--cluster-mode", "sharded"], {}), /--cluster-mode: 'sharded' is not replicated or spread/);
    assert.throws(() => loadConfig(["--queue-leader-locator", "nearest"], {}), /--queue-leader-locator: 'nearest' is not one of client-local, balanced/);
  });

  it("take --cluster-tls in spread mode (links and replication over TLS), still needing a certificate to present", () => {
    const c = loadConfig([...ETCD, "--cluster-mode", "spread", "--cluster-tls", "true", "--tls-cert", "c.pem", "--tls-key", "k.pem"], {});
    assert.equal(c.clusterMode, "spread");
    assert.equal(c.clusterTls, true);
    assert.throws(() => loadConfig([...ETCD, "--cluster-mode", "spread", "--cluster-tls", "true"], {}), /--cluster-tls: needs --tls-cert and --tls-key/);
  });

  it("take RabbitMQ's rabbitmq.conf keys: queue_leader_locator, and queue_master_locator's min-masters as balanced", () => {
    assert.equal(loadConfig(["--config", confFile("queue_leader_locator = balanced\n")], {}).queueLeaderLocator, "balanced");
    assert.equal(loadConfig(["--config", confFile("queue_master_locator = min-masters\n")], {}).queueLeaderLocator, "balanced");
    assert.equal(loadConfig(["--config", confFile("queue_master_locator = client-local\n")], {}).queueLeaderLocator, "client-local");
  });
});
