// `coney-perf spread` on a spread cluster over etcd, end to end: started by the command (`--cluster
// 2`: etcd and two `--cluster-mode spread` nodes, then one node beside them for reference, removed afterwards) and attached to (`--node-uris`
// / `--node-https` of a cluster the test runs). It prints the nodes with their processes, the
// aggregate row with each node's share of the broker's CPU and the local / forwarded pair. Figures
// are only checked to be there and to say both nodes worked: performance is measured by the
// benchmark, not by tests.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { promisify } from "node:util";
import { spreadSuite, startSpread } from "./spread-fixture.js";

const bin = new URL("../../../bin/coney-perf.js", import.meta.url).pathname;
const run = promisify(execFile);
const clusterDirs = (): string[] => readdirSync(tmpdir()).filter((f) => f.startsWith("coney-perf-cluster-"));

/** The report's lines: nodes, the aggregate row (rates, CPU, a share per node), the pair rows. */
function checkReport(stdout: string, names: readonly string[]): void {
  const lines = stdout.trim().split("\n");
  assert.match(lines.find((l) => l.startsWith("nodes: ")) ?? "", new RegExp(`^nodes: ${names.map((n) => `${n} \\(pid \\d+\\)`).join(", ")}$`), stdout);
  assert.ok(lines.includes(`| 4 queues, 16 B | msg/s published | msg/s consumed | broker CPU / msg (all nodes) | ${names.map((n) => `${n} share`).join(" | ")} |`), stdout);
  const aggregate = /^\| aggregate \| (\d+) \| (\d+) \| [\d.]+ µs \| (\d+)% \| (\d+)% \|$/.exec(lines.find((l) => l.startsWith("| aggregate")) ?? "");
  assert.ok(aggregate, stdout);
  assert.ok(Number(aggregate[2]) > 0, `messages consumed: ${stdout}`);
  // Each node homes two of the four queues and serves clients: each has a share of the work.
  assert.ok(Number(aggregate[3]) > 0 && Number(aggregate[4]) > 0, `both nodes worked: ${stdout}`);
  assert.match(lines.find((l) => l.startsWith("| on the leading node")) ?? "", /^\| on the leading node \| [1-9]\d* \| [\d.]+ µs \| [\d.]+ \|$/, stdout);
  assert.match(lines.find((l) => l.startsWith("| on another node")) ?? "", /^\| on another node \(forwarded\) \| [1-9]\d* \| [\d.]+ µs \| [\d.]+ \|$/, stdout);
  assert.match(stdout, /forwarded \/ local: [\d.]+×/);
}

describe("coney-perf spread on a spread cluster over etcd", { timeout: 120_000 }, () => {
  it("--cluster 2 starts etcd and two spread nodes, reports every node's share and the pair, and leaves nothing behind", async () => {
    const before = new Set(clusterDirs());
    const { stdout } = await run(process.execPath, [bin, "spread", "--cluster", "2", "--queues", "4", "-z", "1", "--etcd-lease-ttl", "3"], { timeout: 90_000 });
    assert.match(stdout, /^spread cluster: 2 nodes on a local etcd, started here$/m);
    checkReport(stdout, ["node0@perf", "node1@perf"]);
    assert.match(stdout, /^reference, in the same run: one node, no cluster .*\n\n\| 4 queues, 16 B \| msg\/s published \| msg\/s consumed \| broker CPU \/ msg \(all nodes\) \| [^|]+ share \|\n\|---\|---\|---\|---\|---\|\n\| aggregate \| \d+ \| [1-9]\d* \| [\d.]+ µs \| 100% \|$/m, stdout);
    assert.deepEqual(clusterDirs().filter((d) => !before.has(d)), [], "its directory is removed");
  });

  describe("attached", () => {
    const { cluster, pass } = spreadSuite(2);
    it("--node-uris / --node-https measure a running spread cluster", async () => {
      await startSpread(cluster);
      const uris = cluster.nodes.map((n) => cluster.url(n)).join(",");
      const https = cluster.nodes.map((n) => `http://guest:guest@127.0.0.1:${n.httpPort}`).join(",");
      const { stdout } = await run(process.execPath, [bin, "spread", "--node-uris", uris, "--node-https", https, "--queues", "4", "-z", "1"], { timeout: 90_000 });
      assert.match(stdout, /^spread cluster: 2 nodes, attached$/m);
      checkReport(stdout, ["node0@test", "node1@test"]);
      pass();
    });
  });

  it("refuses --cluster-tls with an attached cluster (which runs as it was started)", async () => {
    await assert.rejects(run(process.execPath, [bin, "spread", "--node-uris", "amqp://127.0.0.1:1,amqp://127.0.0.1:2", "--node-https", "http://127.0.0.1:3,http://127.0.0.1:4", "--cluster-tls", "-z", "1"]), (err: Error & { stderr?: string }) => {
      assert.match(err.stderr ?? "", /--cluster-tls: only with --cluster/);
      return true;
    });
  });

  it("refuses an attach list that does not pair each node's URI with its API", async () => {
    await assert.rejects(run(process.execPath, [bin, "spread", "--node-uris", "amqp://127.0.0.1:1,amqp://127.0.0.1:2", "--node-https", "http://127.0.0.1:3", "-z", "1"]), (err: Error & { stderr?: string }) => {
      assert.match(err.stderr ?? "", /--node-uris and --node-https: one of each per node, at least two nodes/);
      return true;
    });
  });
});
