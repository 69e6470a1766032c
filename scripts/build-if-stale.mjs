#!/usr/bin/env node
// `npm start` builds only when a source is newer than the last build, and several `npm start`
// at once (the README's three-node cluster) build once: the first takes a lock (an atomic mkdir
// holding its pid), the others wait for it and then find the build fresh. A lock left by a
// process that died is taken over. `npm run build` itself is unchanged.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const lock = join(repo, "dist", ".build-lock");
// tsc rewrites every output and build-ui.mjs rewrites index.html, so the older of the two is when the build ended.
const OUTPUTS = ["dist/src/main.js", "dist/src/ui/www/index.html"];
const SOURCES = ["src", "test", "bench", "tsconfig.json", "package.json"];

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -Infinity;
  }
}

function newest(path) {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return -Infinity;
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)));
  return max;
}

const builtAt = () => Math.min(...OUTPUTS.map((o) => mtime(join(repo, o))));
const stale = () => Math.max(...SOURCES.map((s) => newest(join(repo, s)))) > builtAt();

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}

function tryLock() {
  mkdirSync(join(repo, "dist"), { recursive: true });
  try {
    mkdirSync(lock);
    writeFileSync(join(lock, "pid"), String(process.pid));
    return true;
  } catch (err) {
    if (err.code !== "EEXIST") throw err;
    let holder = NaN;
    try {
      holder = Number(readFileSync(join(lock, "pid"), "utf8"));
    } catch {
      // the holder has not written its pid yet: treat it as alive
      return false;
    }
    if (Number.isInteger(holder) && !alive(holder)) rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

while (stale()) {
  if (!tryLock()) {
    await sleep(200);
    continue;
  }
  try {
    if (!stale()) break;
    const r = spawnSync("npm", ["run", "build", "--silent"], { cwd: repo, stdio: "inherit" });
    if (r.status !== 0) process.exit(r.status ?? 1);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  break; // built once; a source dated in the future must not make this loop for ever
}
