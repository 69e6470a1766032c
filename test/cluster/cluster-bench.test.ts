// `coney-perf cluster` end to end: it starts etcd and a 2-node cluster of real processes plus a
// single node, runs the persistent and the stream scenarios against each, prints one table, and leaves nothing
// behind. Figures are only checked to be there: performance is measured by the benchmark.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { promisify } from "node:util";

const bin = new URL("../../../bin/coney-perf.js", import.meta.url).pathname;
const run = promisify(execFile);
const clusterDirs = (): string[] => readdirSync(tmpdir()).filter((f) => f.startsWith("coney-perf-cluster-"));

describe("coney-perf cluster", { timeout: 100_000 }, () => {
  it("prints the persistent and the stream rows for the cluster via the leader, via a follower and for a single node", async () => {
    const before = new Set(clusterDirs());
    const { stdout } = await run(process.execPath, [bin, "cluster", "--nodes", "2", "-z", "1", "--etcd-lease-ttl", "3"], { timeout: 90_000 });
    const lines = stdout.trim().split("\n");
    assert.equal(lines[0], "| scenario | 2-node cluster, via the leader | 2-node cluster, via a follower | single node |", stdout);
    assert.match(lines[2] ?? "", /^\| persistent, confirms \(256 in flight\), durable queue, 16 B( \| [\d,]+\/s \(p99 [\d.]+ ms\)){3} \|$/, stdout);
    assert.match(lines[3] ?? "", /^\| confirms \(256 in flight\), stream queue \(consumed from next\), 16 B( \| [\d,]+\/s \(p99 [\d.]+ ms\)){3} \|$/, stdout);
    assert.deepEqual(clusterDirs().filter((d) => !before.has(d)), [], "its directory is removed");
  });

  it("names the package to install when etcd is missing", async () => {
    await assert.rejects(run(process.execPath, [bin, "cluster", "--etcd", "/nonexistent/etcd", "-z", "1"]), (err: Error & { stderr?: string }) => {
      assert.match(err.stderr ?? "", /etcd not found at \/nonexistent\/etcd: install it \(Debian: apt-get install etcd-server\)/);
      return true;
    });
  });
});
