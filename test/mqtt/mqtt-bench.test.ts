// `coney-perf mqtt` against a test broker: every QoS level move messages end to end, and the
// publisher is held back by flow control rather than outrunning the subscriber without bound.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { runMqttBench } from "../../src/bench/mqtt-bench.js";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";

describe("coney-perf mqtt", () => {
  let broker: TestBroker;
  before(async () => {
    broker = await startTestBroker({ mqttPort: 0 });
  });
  after(() => broker.close());

  for (const qos of [0, 1, 2] as const) {
    it(`QoS ${qos}: one publisher to one subscriber`, async () => {
      const r = await runMqttBench({ url: `mqtt://guest:guest@127.0.0.1:${broker.mqttPort}`, qos, size: 64, subscribers: 1, durationSeconds: 1, inflight: 100 });
      assert.ok(r.receivedPerSecond > 100, `received ${r.receivedPerSecond}/s`);
      assert.ok(r.latencyP50 > 0);
    });
  }
});
