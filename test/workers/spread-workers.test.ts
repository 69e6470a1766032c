// What the primary gives each worker of `coney --workers N --cluster-mode spread`: its node name, data dir and link port (src/workers/spread-workers.ts).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load-config.js";
import { spreadWorkerConfig, spreadWorkerLinkPort, workersAsSpreadNodes } from "../../src/workers/spread-workers.js";
import { workerNodeName } from "../../src/workers/worker-node-name.js";
import { refusal } from "../../src/workers/run-primary.js";

describe("workers as spread-cluster nodes: each worker's settings", () => {
  it("names each worker after the configured node, before its @host", () => {
    assert.equal(workerNodeName("coney@db1", 0), "coney-w0@db1");
    assert.equal(workerNodeName("coney@db1", 3), "coney-w3@db1");
    assert.equal(workerNodeName("edge", 1), "edge-w1");
  });

  it("spreads --cluster-port over the workers (port + i), keeps 0 ephemeral, and refuses one past 65535", () => {
    assert.equal(spreadWorkerLinkPort(0, 1, 2), 0);
    assert.equal(spreadWorkerLinkPort(25672, 0, 2), 25672);
    assert.equal(spreadWorkerLinkPort(25672, 1, 2), 25673);
    assert.throws(() => spreadWorkerLinkPort(65535, 0, 2), /--cluster-port 65535: worker 1 would listen past port 65535/);
  });

  it("gives each worker its own data dir under <data>/spread/", () => {
    const config = loadConfig(["--workers", "2", "--node-name", "m@h", "--data-dir", "/var/lib/coney", "--etcd-endpoints", "http://127.0.0.1:2379", "--cluster-mode", "spread", "--cluster-port", "4000"], {});
    assert.deepEqual(spreadWorkerConfig(config, 1, 2), { nodeName: "m-w1@h", dataDir: join("/var/lib/coney", "spread", "w1"), clusterPort: 4001 });
  });

  it("runs workers as spread nodes only with etcd and --cluster-mode spread; refuses the replicated mode, naming spread", () => {
    const spread = loadConfig(["--workers", "2", "--etcd-endpoints", "http://127.0.0.1:2379", "--cluster-mode", "spread"], {});
    assert.equal(workersAsSpreadNodes(spread), true);
    assert.equal(refusal(spread), null);
    const replicated = loadConfig(["--workers", "2", "--etcd-endpoints", "http://127.0.0.1:2379"], {});
    assert.equal(workersAsSpreadNodes(replicated), false);
    assert.match(refusal(replicated) ?? "", /--workers 2 with --etcd-endpoints needs --cluster-mode spread/);
    const alone = loadConfig(["--workers", "2"], {});
    assert.equal(workersAsSpreadNodes(alone), false);
    assert.equal(refusal(alone), null);
  });
});
