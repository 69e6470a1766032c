// The compat replay: every scenario under test/compat/scenarios/ runs against Coney (real broker
// on ephemeral ports, real clients) and must answer as RabbitMQ 3.10 answered when recorded
// (test/compat/recorded/), apart from the chosen deviations in test/compat/deviations.ts.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { COMPAT_SOURCE_DIR, loadScenarioFiles, runScenario, stepLabel } from "./runner.js";
import { compareOutcome, globMatches } from "./compare.js";
import { DEVIATIONS, deviationCovers } from "./deviations.js";
import { isHttp, type Recording } from "./scenario.js";

const files = await loadScenarioFiles();

for (const [file, scenarios] of files) {
  describe(`compat: ${file}`, () => {
    let broker: TestBroker;
    const recordingPath = join(COMPAT_SOURCE_DIR, "recorded", `${file}.json`);
    const recording: Recording | null = existsSync(recordingPath) ? (JSON.parse(readFileSync(recordingPath, "utf8")) as Recording) : null;
    before(async () => {
      broker = await startTestBroker();
    });
    after(async () => broker.close());

    for (const scenario of scenarios) {
      it(scenario.name, async () => {
        const recorded = recording?.scenarios[scenario.name];
        assert.ok(recorded, `no recording of '${scenario.name}': run npm run compat:record ${file} against RabbitMQ 3.10`);
        const run = await runScenario({ httpUrl: broker.httpUrl, amqpHost: "127.0.0.1", amqpPort: broker.amqpPort }, scenario);
        assert.deepEqual(run.setupFailures, [], "the scenario's fixtures failed on Coney");
        assert.equal(run.outcomes.length, recorded.length, "the recording has another number of steps: record again");
        const problems: string[] = [];
        for (const [i, step] of scenario.steps.entries()) {
          const rabbit = recorded[i]!;
          const coney = run.outcomes[i]!;
          const label = stepLabel(step);
          for (const d of compareOutcome(rabbit, coney, isHttp(step) ? step : null)) {
            if (DEVIATIONS.some((dev) => deviationCovers(dev, `${file}/${scenario.name}`, label, d.kind, d.path, rabbit, coney, globMatches))) continue;
            problems.push(`step ${i + 1} ${label}: ${d.kind} ${d.path} (${d.detail})`);
          }
        }
        if (problems.length > 0) assert.fail(`Coney differs from ${recording?.recordedFrom}:\n${problems.join("\n")}`);
      });
    }
  });
}
