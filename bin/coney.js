#!/usr/bin/env -S node --single-threaded-gc
// The broker. Runs the compiled code in dist/ (npm install builds it).
// --single-threaded-gc (here and in `npm start`): V8's garbage collector works on the event
// loop's thread instead of four helper threads. On a 2-core host it cut the broker's CPU per
// 1 MB message by a fifth and per 16 B message by about a tenth, since helpers compete with the
// loop and the clients for the same cores (docs/PERFORMANCE.md, "Garbage collector threads").
// Flags cannot be changed once V8 runs, so this is the launcher's choice: `node bin/coney.js`
// runs with V8's default parallel collector.
import { main } from "../dist/src/main.js";

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`coney: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
