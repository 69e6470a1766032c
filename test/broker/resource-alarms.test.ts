// ResourceAlarms as a pure piece: thresholds, reason texts, and release of held connections.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ResourceAlarms, type ResourceProbe } from "../../src/broker/alarms/resource-alarms.js";

describe("resource alarms", () => {
  it("set the reason while memory or disk is past its limit and release held connections when both clear", () => {
    const probe = { rss: 500, total: 1000, free: 100 };
    const p: ResourceProbe = { rss: () => probe.rss, totalMemory: () => probe.total, diskFree: () => probe.free };
    const alarms = new ResourceAlarms({ memHighWatermark: 0.4, diskFreeLimit: 50 }, "/unused", p);
    assert.equal(alarms.reason, "low on memory");
    assert.deepEqual([alarms.figures.memUsed, alarms.figures.memLimit, alarms.figures.memAlarm, alarms.figures.diskAlarm], [500, 400, true, false]);
    let released = 0;
    alarms.hold({ unblock: () => released++ });
    probe.free = 10;
    alarms.check();
    assert.equal(alarms.reason, "low on memory and disk");
    probe.rss = 100;
    alarms.check();
    assert.equal(alarms.reason, "low on disk");
    assert.equal(released, 0, "held while any alarm is on");
    alarms.setLimits({ diskFreeLimit: 5 });
    assert.equal(alarms.reason, null);
    assert.equal(released, 1);
    alarms.check();
    assert.equal(released, 1, "released once");
  });

  it("treat an unreadable data dir as a full disk", () => {
    const p: ResourceProbe = { rss: () => 1, totalMemory: () => 1000, diskFree: () => { throw new Error("ENOENT"); } };
    assert.equal(new ResourceAlarms({ memHighWatermark: 0.4, diskFreeLimit: 1 }, "/missing", p).reason, "low on disk");
  });
});
