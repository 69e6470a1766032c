// Stage 2 of a spread cluster: the per-store etcd keys (src/cluster/spread-keys.ts) and what a node
// makes of them (src/cluster/spread-store-view.ts): owner, in-sync set with its revision, hand-back,
// the known nodes and the default min-in-sync they give.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SpreadKeys } from "../../src/cluster/spread-keys.js";
import { SpreadStoreView } from "../../src/cluster/spread-store-view.js";

describe("spread cluster store keys and view", () => {
  const keys = new SpreadKeys("c1");

  it("parses a store's keys, and tells them from the other keys", () => {
    assert.deepEqual(keys.parseStore(keys.storeOwner("n1@h")), { store: "n1@h", part: "owner" });
    assert.deepEqual(keys.parseStore(keys.storeInSync("n1@h")), { store: "n1@h", part: "insync" });
    assert.deepEqual(keys.parseStore(keys.storeHandback("n1@h")), { store: "n1@h", part: "handback" });
    assert.equal(keys.parseStore(keys.member("n1@h")), null);
    assert.equal(keys.parseStore(`${keys.prefix}stores/n1@h/other`), null);
    assert.ok(keys.isKnown(keys.known("n1@h")));
    assert.equal(keys.isKnown(keys.member("n1@h")), false);
  });

  it("follows owner, in-sync set (with its revision) and hand-back, and forgets deleted ones", () => {
    const view = new SpreadStoreView(keys);
    assert.equal(view.take(keys.member("a"), "{}", 1), false, "not a store key");
    assert.ok(view.listed("a", "b"), "a store nobody wrote a list for lists everyone");
    view.take(keys.storeOwner("a"), JSON.stringify({ node: "a", host: "h", replPort: 5 }), 2);
    view.take(keys.storeInSync("a"), JSON.stringify({ owner: "a", epoch: 2, nodes: ["a", "b"] }), 7);
    assert.equal(view.of("a").owner?.replPort, 5);
    assert.equal(view.of("a").inSyncRevision, 7);
    assert.ok(view.listed("a", "b"));
    assert.equal(view.listed("a", "c"), false);
    view.take(keys.storeHandback("a"), JSON.stringify({ node: "a" }), 8);
    assert.equal(view.of("a").handback, "a");
    view.take(keys.storeOwner("a"), null, 9);
    view.take(keys.storeHandback("a"), null, 10);
    assert.equal(view.of("a").owner, null);
    assert.equal(view.of("a").handback, null);
  });

  it("sets the default min-in-sync from the known nodes, a majority counting the writer", () => {
    const view = new SpreadStoreView(keys);
    assert.equal(view.minInSync(null), 0, "alone");
    for (const n of ["a", "b", "c"]) view.take(keys.known(n), JSON.stringify({ name: n }), 1);
    assert.equal(view.minInSync(null), 1, "three nodes");
    assert.equal(view.minInSync(2), 2, "the setting wins");
  });
});
