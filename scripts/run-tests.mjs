#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) with node's own test runner.
// Node 20's `node --test` does not expand globs, so the list is built here.
// Usage: node scripts/run-tests.mjs [substring-filter ...]
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith(".test.js")) out.push(p);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = walk("dist/test", []).sort().filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}
// Every broker the tests start poisons the read slabs it takes back (src/listeners/slab-pool.ts):
// a body read after its slab was released shows 0xdb bytes, and a release too many throws.
const env = { ...process.env, CONEY_POISON_READS: "1" };
const res = spawnSync(process.execPath, ["--test", "--test-concurrency=2", "--test-timeout=120000", ...files], { stdio: "inherit", env });
process.exit(res.status ?? 1);
