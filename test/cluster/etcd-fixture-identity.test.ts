// The cluster tests' etcd is their own (etcd-identity.ts): when another process's etcd already holds
// the client port a cluster picked, the other etcd answers /health while the new one exits, and a
// cluster started on that URL joined the other etcd — a SIGSTOP of "its" etcd then stopped nothing,
// which is how spread-cluster's "a queue declared while etcd is stopped confirms nothing" once saw
// ten confirms within its 500 ms (a cluster's etcd lost its port to another file's etcd under load).
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { TestCluster, freePort } from "./cluster-fixture.js";
import { etcdAnswersAs } from "../../src/bench/etcd-identity.js";

const portOf = (url: string): number => Number(new URL(url).port);

describe("a cluster test's etcd is its own, not another process's on the port it picked", () => {
  const other = new TestCluster(0);
  const mine = new TestCluster(0);
  after(async () => {
    await mine.close();
    await other.close();
  });

  it("starts on fresh ports when its first client port is taken by another etcd, and answers as itself there", async () => {
    await other.startEtcd();
    assert.ok(await etcdAnswersAs(other.etcdUrl, other.etcdName), "the other etcd answers as itself");
    assert.equal(await etcdAnswersAs(other.etcdUrl, mine.etcdName), false, "and not as this cluster's etcd");
    await mine.startEtcd([portOf(other.etcdUrl), await freePort()]);
    assert.notEqual(mine.etcdUrl, other.etcdUrl, "this cluster's etcd is not the other one");
    assert.ok(await etcdAnswersAs(mine.etcdUrl, mine.etcdName), "this cluster's own etcd answers on its URL");
    assert.equal(mine.etcd?.exitCode, null, "and it is the process the fixture holds");
  });

  it("a SIGSTOP of its etcd stops what its nodes would talk to, and nothing of the other's", async () => {
    await mine.stopped(mine.etcd);
    try {
      assert.equal(await etcdAnswersAs(mine.etcdUrl, mine.etcdName), false, "stopped: no answer");
      assert.ok(await etcdAnswersAs(other.etcdUrl, other.etcdName), "the other etcd still answers");
    } finally {
      mine.signal(mine.etcd, "SIGCONT");
    }
    assert.ok(await etcdAnswersAs(mine.etcdUrl, mine.etcdName), "answers again after SIGCONT");
  });

  it("refuses to SIGSTOP a process that is not running (the stop would stop nothing)", () => {
    assert.throws(() => mine.signal(null, "SIGSTOP"), /not running/);
  });
});
