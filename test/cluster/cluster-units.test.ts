// Pure pieces of clustering: the replication frame splitter and the cluster flags.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { FrameSplitter, FrameType } from "../../src/cluster/replication-frames.js";
import { loadConfig } from "../../src/config/load-config.js";
import { defaultConfig } from "../../src/config/config.js";

function frame(type: FrameType, payload: Buffer): Buffer {
  const h = Buffer.alloc(5);
  h.writeUInt32LE(1 + payload.length, 0);
  h[4] = type;
  return Buffer.concat([h, payload]);
}

describe("replication frames", () => {
  it("splits frames whatever the chunking", () => {
    const frames = [frame(FrameType.Seg, Buffer.from("abc")), frame(FrameType.SnapEnd, Buffer.alloc(0)), frame(FrameType.Defs, Buffer.alloc(70_000, 7))];
    const all = Buffer.concat(frames);
    for (const size of [1, 2, 5, 7, 4096, all.length]) {
      const got: Array<[number, number]> = [];
      const s = new FrameSplitter((t, p) => got.push([t, p.length]));
      for (let i = 0; i < all.length; i += size) s.push(all.subarray(i, i + size));
      assert.deepEqual(got, [[FrameType.Seg, 3], [FrameType.SnapEnd, 0], [FrameType.Defs, 70_000]], `chunks of ${size}`);
    }
  });
});

describe("cluster flags", () => {
  it("leaves clustering off by default and separates the node name from the cluster name", () => {
    const c = loadConfig([], {});
    assert.deepEqual(c.etcdEndpoints, []);
    assert.equal(c.minInSyncReplicas, null);
    assert.equal(c.nodeName, defaultConfig().nodeName);
    const d = loadConfig(["--etcd-endpoints", "http://127.0.0.1:1,http://127.0.0.1:2", "--node-name", "a@h", "--cluster-name", "prod", "--min-in-sync-replicas", "2", "--etcd-lease-ttl", "4"], {});
    assert.deepEqual(d.etcdEndpoints, ["http://127.0.0.1:1", "http://127.0.0.1:2"]);
    assert.equal(d.nodeName, "a@h");
    assert.equal(d.clusterName, "prod");
    assert.equal(d.minInSyncReplicas, 2);
    assert.equal(d.etcdLeaseTtl, 4);
    assert.throws(() => loadConfig(["--min-in-sync-replicas", "-1"], {}), /--min-in-sync-replicas: '-1' is not a non-negative integer/);
  });
});
