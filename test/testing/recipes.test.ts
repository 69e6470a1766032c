// The test-runner recipes of examples/testing (issue 29) run as a user's project runs them: each
// folder is copied into a fresh project whose node_modules holds `coney` (this repository, as an
// installed dev dependency would be) and the clients and runner it uses; the runner must pass
// exactly the recipe's tests.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const modules = join(root, "node_modules");

/** A project made of examples/testing/<recipe> with `coney` and `packages` installed (linked). */
function project(recipe: string, packages: string[]): { dir: string; remove(): void } {
  const base = mkdtempSync(join(tmpdir(), `coney-recipe-${recipe}-`));
  const dir = join(base, recipe);
  cpSync(join(root, "examples", "testing", recipe), dir, { recursive: true });
  const link = (name: string, target: string): void => {
    const at = join(dir, "node_modules", name);
    mkdirSync(dirname(at), { recursive: true });
    symlinkSync(target, at, "dir");
  };
  link("coney", root);
  for (const p of packages) link(p, join(modules, p));
  return { dir, remove: () => rmSync(base, { recursive: true, force: true }) };
}

function run(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  // NODE_TEST_CONTEXT would make the recipe's own `node --test` think it runs inside this one.
  const { NODE_TEST_CONTEXT: _nested, ...env } = process.env;
  const child = spawn(process.execPath, args, { cwd, env: { ...env, NO_COLOR: "1", FORCE_COLOR: "0", CI: "1" }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, output })));
}

async function recipe(name: string, packages: string[], args: (dir: string) => string[], passed: RegExp): Promise<void> {
  const p = project(name, packages);
  try {
    const r = await run(args(p.dir), p.dir);
    assert.equal(r.code, 0, `${name} failed:\n${r.output}`);
    assert.match(r.output, passed, `${name} did not pass the expected tests:\n${r.output}`);
  } finally {
    p.remove();
  }
}

describe("examples/testing: the recipes run under their runners", { timeout: 120_000 }, () => {
  it("node:test (a broker per file, reset per test, fault injection)", () =>
    recipe("node-test", ["amqplib"], () => ["--test", "orders.test.mjs", "faults.test.mjs"], /# pass 4\n# fail 0/));

  it("Vitest (global setup shared through vhosts, and a broker per file)", () =>
    recipe("vitest", ["vitest", "@cloudamqp/amqp-client"], () => [join(modules, "vitest", "vitest.mjs"), "run"], /Tests\s+3 passed \(3\)/));

  it("Jest (global setup shared through vhosts, and a broker per file)", () =>
    recipe("jest", ["jest", "@jest/globals", "amqplib", "rabbitmq-client"], () => ["--experimental-vm-modules", join(modules, "jest", "bin", "jest.js")], /Tests:\s+2 passed, 2 total/));

  it("Mocha (root hooks: one broker for the run, reset per test; and a broker per file)", () =>
    recipe("mocha", ["mocha", "amqplib"], () => [join(modules, "mocha", "bin", "mocha.js")], /4 passing/));
});
