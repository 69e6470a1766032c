#!/usr/bin/env node
// coneyctl, the rabbitmqctl-compatible administration CLI. Runs the compiled code in dist/.
import { runConeyctl } from "../dist/src/cli/coneyctl.js";

/** All of standard input, or null when it is a terminal (nothing was piped in). */
function readStdin() {
  if (process.stdin.isTTY) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks = [];
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (d) => chunks.push(d));
    process.stdin.on("end", () => resolve(chunks.length === 0 ? null : chunks.join("")));
    process.stdin.on("error", reject);
  });
}

// `coneyctl list_queues | head -1`: a reader that goes away is no error of ours.
process.stdout.on("error", (err) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});

const io = {
  env: process.env,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  readStdin,
};

runConeyctl(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`coneyctl: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 70;
  },
);
