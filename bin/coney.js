#!/usr/bin/env node
// The broker. Runs the compiled code in dist/ (npm install builds it).
import { main } from "../dist/src/main.js";

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`coney: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
