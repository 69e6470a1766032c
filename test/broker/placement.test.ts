// Placement (docs/CLUSTERING.md, "Placement"): the leader locator, the node it picks, the group a name hashes to.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chooseLeaderNode, leaderLocatorOf, queueGroupOf } from "../../src/broker/queue/placement.js";

describe("leaderLocatorOf", () => {
  it("takes the policy key over the argument over the setting, as RabbitMQ 3.10", () => {
    assert.equal(leaderLocatorOf({ "x-queue-leader-locator": "client-local" }, { "queue-leader-locator": "balanced" }, "client-local"), "balanced");
    assert.equal(leaderLocatorOf({ "x-queue-leader-locator": "balanced" }, {}, "client-local"), "balanced");
    assert.equal(leaderLocatorOf({}, {}, "balanced"), "balanced");
    assert.equal(leaderLocatorOf({}, {}, undefined), "client-local", "the default");
  });

  it("reads the deprecated random and least-leaders as balanced, anything else as client-local", () => {
    assert.equal(leaderLocatorOf({ "x-queue-leader-locator": "random" }, {}, undefined), "balanced");
    assert.equal(leaderLocatorOf({}, { "queue-leader-locator": "least-leaders" }, undefined), "balanced");
    assert.equal(leaderLocatorOf({}, {}, "min-masters"), "client-local");
  });
});

describe("chooseLeaderNode", () => {
  const nodes = [
    { name: "a", running: true, leaders: 5 },
    { name: "b", running: false, leaders: 0 },
    { name: "c", running: true, leaders: 2 },
    { name: "d", running: true, leaders: 2 },
  ];

  it("client-local is the declaring client's node", () => {
    assert.equal(chooseLeaderNode("client-local", "a", nodes), "a");
  });

  it("balanced is the running node leading fewest, ties to the first listed", () => {
    assert.equal(chooseLeaderNode("balanced", "a", nodes), "c");
  });

  it("balanced falls back to every node when none runs, and to self with no nodes", () => {
    const down = nodes.map((n) => ({ ...n, running: false }));
    assert.equal(chooseLeaderNode("balanced", "a", down), "b");
    assert.equal(chooseLeaderNode("balanced", "a", []), "a");
  });
});

describe("queueGroupOf", () => {
  it("is stable, in range, and separates vhost from name", () => {
    assert.equal(queueGroupOf("/", "orders", 16), queueGroupOf("/", "orders", 16));
    for (let i = 0; i < 200; i++) {
      const g = queueGroupOf("/", `q${i}`, 7);
      assert.ok(Number.isInteger(g) && g >= 0 && g < 7);
    }
    // Without the separator these two would hash the same string.
    assert.notEqual(queueGroupOf("a", "bc", 1 << 30), queueGroupOf("ab", "c", 1 << 30));
  });

  it("spreads names evenly: 16,000 names over 16 groups, each within 15% of 1,000", () => {
    const counts = new Array<number>(16).fill(0);
    for (let i = 0; i < 16_000; i++) counts[queueGroupOf("/", `queue-${i}`, 16)]!++;
    for (const c of counts) assert.ok(c > 850 && c < 1150, `a group got ${c}`);
  });

  it("refuses a group count that is not a positive integer", () => {
    assert.throws(() => queueGroupOf("/", "q", 0), RangeError);
    assert.throws(() => queueGroupOf("/", "q", 1.5), RangeError);
  });
});
