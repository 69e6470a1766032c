// The machine-load figures of `coney-perf sizes` (src/bench/machine-load.ts): /proc/stat parsing
// and the shares between two readings, on fixed text, and a live reading on this machine.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { formatMachineShare, machineShare, parseMachineTicks, readMachineTicks, storageWriteBytes } from "../../src/bench/machine-load.js";

describe("machine load", () => {
  it("reads the aggregate cpu line: busy is all but idle and iowait, steal included", () => {
    const t = parseMachineTicks("cpu  100 5 40 800 10 2 20 3 0 0\ncpu0 50 2 20 400 5 1 10 1 0 0\n");
    assert.deepEqual(t, { busy: 100 + 5 + 40 + 2 + 20 + 3, idle: 800, iowait: 10, softirq: 20 });
    assert.equal(parseMachineTicks("cpu0 1 2 3 4 5 6 7\n"), null, "a per-core line is not the aggregate");
    assert.equal(parseMachineTicks("cpu 1 2 x 4 5 6 7\n"), null);
    assert.equal(parseMachineTicks(""), null);
  });

  it("gives the shares of all cores' time between two readings", () => {
    const a = parseMachineTicks("cpu 100 0 100 1000 0 0 10 0\n")!;
    const b = parseMachineTicks("cpu 250 0 200 1020 20 0 70 0\n")!;
    // busy +310, idle +20, iowait +20: 350 ticks in all.
    const s = machineShare(a, b)!;
    assert.ok(Math.abs(s.busy - 310 / 350) < 1e-9);
    assert.ok(Math.abs(s.softirq - 60 / 350) < 1e-9);
    assert.ok(Math.abs(s.iowait - 20 / 350) < 1e-9);
    assert.equal(formatMachineShare(s), "machine busy 89 % (softirq 17 %, iowait 6 %)");
    assert.equal(machineShare(a, a), null, "no time passed: no share");
  });

  it("reads this machine and this process", () => {
    const t = readMachineTicks();
    assert.ok(t !== null && t.busy > 0 && t.idle >= 0, "Linux's /proc/stat");
    assert.ok((storageWriteBytes(process.pid) ?? -1) >= 0, "this process's own io file");
    assert.equal(storageWriteBytes(2 ** 30), null, "no such process");
  });
});
