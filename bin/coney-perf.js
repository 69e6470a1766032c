#!/usr/bin/env node
// The load generator (like RabbitMQ's PerfTest). Runs the compiled code in dist/.
import { perfMain } from "../dist/src/bench/perf-main.js";

perfMain(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`coney-perf: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
