/**
 * `npm run compat:record`: runs every compat scenario against a real RabbitMQ 3.10 and saves its
 * answers in test/compat/recorded/<scenario-file>.json. Run by hand, never in CI.
 *
 *   COMPAT_RABBITMQ_HTTP (default http://127.0.0.1:15672), COMPAT_RABBITMQ_AMQP (127.0.0.1:5672)
 *   node dist/test/compat/record.js [scenario-file ...]   records only the files named
 *
 * The scenarios create and delete their own fixtures (vhosts, users, queues named compat-*).
 */
import { mkdirSync, readFileSync, writeFileSync, renameSync, existsSync } from "node:fs";
import { join } from "node:path";
import { COMPAT_SOURCE_DIR, loadScenarioFiles, runScenario, type Target } from "./runner.js";
import type { Recording } from "./scenario.js";

async function main(): Promise<void> {
  const [amqpHost, amqpPort] = (process.env["COMPAT_RABBITMQ_AMQP"] ?? "127.0.0.1:5672").split(":") as [string, string];
  const target: Target = { httpUrl: process.env["COMPAT_RABBITMQ_HTTP"] ?? "http://127.0.0.1:15672", amqpHost, amqpPort: Number(amqpPort) };
  const overview = (await (await fetch(`${target.httpUrl}/api/overview`, { headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` } })).json()) as { rabbitmq_version?: string };
  const recordedFrom = `RabbitMQ ${overview.rabbitmq_version ?? "?"}`;
  const only = process.argv.slice(2);
  const dir = join(COMPAT_SOURCE_DIR, "recorded");
  mkdirSync(dir, { recursive: true });
  let broken = 0;
  for (const [file, scenarios] of await loadScenarioFiles()) {
    if (only.length > 0 && !only.includes(file)) continue;
    const path = join(dir, `${file}.json`);
    const previous: Recording | null = existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Recording) : null;
    const recording: Recording = { recordedFrom, scenarios: {} };
    for (const s of scenarios) {
      const run = await runScenario(target, s);
      if (run.setupFailures.length > 0) {
        broken++;
        console.error(`${file} / ${s.name}: setup failed on ${recordedFrom}:\n  ${run.setupFailures.join("\n  ")}`);
        if (previous?.scenarios[s.name]) recording.scenarios[s.name] = previous.scenarios[s.name]!;
        continue;
      }
      recording.scenarios[s.name] = run.outcomes;
    }
    // Atomic: a recording is never half written.
    writeFileSync(`${path}.tmp`, `${JSON.stringify(recording, null, 1)}\n`);
    renameSync(`${path}.tmp`, path);
    console.log(`${file}: ${Object.keys(recording.scenarios).length} scenarios recorded`);
  }
  if (broken > 0) process.exitCode = 1;
}

await main();
