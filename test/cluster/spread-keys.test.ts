// The spread cluster's etcd keys (src/cluster/spread-keys.ts): a queue's key carries any vhost and
// name (slashes included) and reads back the same; other keys are told apart from it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SpreadKeys } from "../../src/cluster/spread-keys.js";

describe("spread cluster keys", () => {
  const keys = new SpreadKeys("c1");

  it("round-trips a queue's vhost and name, slashes and all", () => {
    for (const [vhost, name] of [["/", "orders"], ["a/b", "x/y/z"], ["v", "with space%and€"]] as const) {
      const key = keys.queue(vhost, name);
      assert.ok(key.startsWith("/coney/c1/spread/queues/"));
      assert.deepEqual(keys.parseQueue(key), { vhost, name });
    }
  });

  it("tells members, logs and the rest apart", () => {
    assert.equal(keys.parseMember(keys.member("n1@h")), "n1@h");
    assert.equal(keys.parseMember(keys.log("n1@h")), null);
    assert.ok(keys.isLog(keys.log("n1@h")));
    assert.equal(keys.parseQueue(keys.snapshot), null);
    assert.equal(keys.parseQueue(keys.defsLeader), null);
  });
});
