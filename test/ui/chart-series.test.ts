// The pure piece behind the UI's charts: the broker's samples (newest first, the live value
// first) turned into chart columns — lengths as sampled, rates from successive counter samples.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { axisLabels, detailsOf, gaugeColumns, latest, rateColumns } from "../../src/ui/app/chart-series.js";
import { fmtByteRate, fmtNum, fmtRate } from "../../src/ui/app/format.js";

const T = 1_800_000_000_000; // a round time (ms), a multiple of 5 s
const pts = (...p: Array<[number, number]>) => p.map(([timestamp, sample]) => ({ timestamp, sample }));

describe("chart series from the broker's samples", () => {
  it("draws lengths as sampled, oldest first, in seconds", () => {
    const cols = gaugeColumns([{ samples: pts([T + 2_000, 7], [T, 5], [T - 5_000, 3]) }]);
    assert.deepEqual(cols, [[(T - 5_000) / 1000, T / 1000, (T + 2_000) / 1000], [3, 5, 7]]);
  });

  it("turns counter samples into per-second rates, and uses the broker's rate for the live point", () => {
    // publish counter: 100 at T-10s, 150 at T-5s, 250 at T; live 260 at T+1s with the broker's rate 20/s.
    const d = { rate: 20, samples: pts([T + 1_000, 260], [T, 250], [T - 5_000, 150], [T - 10_000, 100]) };
    const cols = rateColumns([d]);
    assert.deepEqual(cols[0], [(T - 5_000) / 1000, T / 1000, (T + 1_000) / 1000]);
    // (150-100)/5 = 10/s, (250-150)/5 = 20/s; no spike from 10 over the last second.
    assert.deepEqual(cols[1], [10, 20, 20]);
  });

  it("draws no negative rate when a counter starts over (an object created again)", () => {
    const cols = rateColumns([{ rate: 0, samples: pts([T + 1_000, 3], [T, 3], [T - 5_000, 500]) }]);
    assert.deepEqual(cols[1], [0, 0]);
  });

  it("a live value alone (no history yet) is one point", () => {
    assert.deepEqual(rateColumns([{ rate: 4.5, samples: pts([T, 9]) }]), [[T / 1000], [4.5]]);
    assert.deepEqual(gaugeColumns([{ samples: pts([T, 9]) }]), [[T / 1000], [9]]);
  });

  it("aligns several series on the union of their times, null where one has no point", () => {
    const cols = gaugeColumns([{ samples: pts([T, 1], [T - 5_000, 2]) }, { samples: pts([T, 4]) }, undefined]);
    assert.deepEqual(cols, [[(T - 5_000) / 1000, T / 1000], [2, 1], [null, 4], [null, null]]);
  });

  it("reads a record's _details and the legend's newest figure", () => {
    const rec = { messages: 3, messages_details: { rate: -1, samples: pts([T, 3], [T - 5_000, 4]) } };
    const d = detailsOf(rec, "messages");
    assert.equal(latest(d, "gauge"), 3);
    assert.equal(latest(d, "rate"), -1);
    assert.equal(detailsOf(rec, "missing"), undefined);
    assert.equal(detailsOf(undefined, "messages"), undefined);
    assert.equal(latest(undefined, "gauge"), undefined);
  });

  it("labels axis ticks exactly: 0.25 and 0.75 stay themselves, with the chart's unit (issue 47, point 11)", () => {
    assert.deepEqual(axisLabels([0, 0.25, 0.5, 0.75, 1], fmtRate), ["0.00/s", "0.25/s", "0.50/s", "0.75/s", "1.00/s"]);
    assert.deepEqual(axisLabels([0, 0.5, 1], fmtRate), ["0.0/s", "0.5/s", "1.0/s"]);
    assert.deepEqual(axisLabels([0.05, 0.1], fmtByteRate), ["0.05 B/s", "0.10 B/s"]);
    assert.deepEqual(axisLabels([0, 1000, 2000], fmtNum), ["0", "1,000", "2,000"]);
  });
});
