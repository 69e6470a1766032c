// Streams in a spread cluster (src/cluster/spread-stream-ports.ts): where a member's streams are
// served, as its etcd record says; the address a node registers for its own and an adopted
// broker's stream listener; a stream's members and online nodes from its home's in-sync set.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SpreadStreamPorts, storeCopies, streamAddress } from "../../src/cluster/spread-stream-ports.js";
import { SpreadKeys, type SpreadMember } from "../../src/cluster/spread-keys.js";
import { SpreadStoreView } from "../../src/cluster/spread-store-view.js";
import { defaultConfig } from "../../src/config/config.js";

const member = (name: string, stream: SpreadMember["stream"]): SpreadMember => ({ name, pid: 1, host: "10.0.0.1", linkPort: 1, amqpPort: 2, httpPort: null, stream });

describe("spread cluster stream ports", () => {
  it("names each member's registered stream host and port, none for a member without a listener or unknown", () => {
    const members = new Map<string, SpreadMember>([
      ["a", member("a", { host: "a.example", port: 5552 })],
      ["b", member("b", null)],
    ]);
    const ports = new SpreadStreamPorts(members);
    assert.equal(ports.own, null, "a spread node's stream port is its own: no second listener");
    assert.deepEqual([ports.hostOf("a"), ports.portOf("a")], ["a.example", 5552]);
    assert.deepEqual([ports.hostOf("b"), ports.portOf("b")], [null, null]);
    assert.deepEqual([ports.hostOf("c"), ports.portOf("c")], [null, null]);
    // Read live: an adopter registering the dead node's record is seen at once.
    members.set("b", member("b", { host: "x.example", port: 40001 }));
    assert.deepEqual([ports.hostOf("b"), ports.portOf("b")], ["x.example", 40001]);
  });

  it("registers the advertised host and port for the node's own listener, the bound port for an adopted broker's", () => {
    const config = { ...defaultConfig(), advertiseAddress: "10.0.0.7" };
    assert.equal(streamAddress(config, null, true), null, "no stream listener");
    assert.deepEqual(streamAddress(config, 5552, true), { host: "10.0.0.7", port: 5552 });
    const advertised = { ...config, streamAdvertisedHost: "stream.example", streamAdvertisedPort: 15552 };
    assert.deepEqual(streamAddress(advertised, 5552, true), { host: "stream.example", port: 15552 });
    assert.deepEqual(streamAddress(advertised, 41234, false), { host: "stream.example", port: 41234 }, "an adopted broker's own port");
  });

  it("lists a stream's home and its store's in-sync nodes as members, the running ones as online", () => {
    const keys = new SpreadKeys("c1");
    const view = new SpreadStoreView(keys);
    assert.deepEqual(storeCopies("a", view, () => true), { members: ["a"], online: ["a"], placement: "none" }, "no in-sync set yet: the home alone");
    view.take(keys.storeInSync("a"), JSON.stringify({ owner: "a", epoch: 2, nodes: ["a", "b", "c"] }), 3);
    assert.deepEqual(storeCopies("a", view, (n) => n !== "c"), { members: ["a", "b", "c"], online: ["a", "b"], placement: "other-machines" });
    // Adopted by b: the home (down) first, then the writer and its followers.
    view.take(keys.storeInSync("a"), JSON.stringify({ owner: "b", epoch: 9, nodes: ["b", "c"] }), 10);
    assert.deepEqual(storeCopies("a", view, (n) => n !== "a"), { members: ["a", "b", "c"], online: ["b", "c"], placement: "other-machines" });
    assert.equal(view.stores.has("z"), false);
    storeCopies("z", view, () => true);
    assert.equal(view.stores.has("z"), false, "asking creates no store entry");
  });
});
