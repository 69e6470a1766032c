// The logger's fault handling as a pure piece: identical repeats within the window become one
// counted line; a sink that throws drops and counts the line and never throws to the caller.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createLogger } from "../../src/logging/logger.js";
import { eventually } from "../helpers/wait.js";

describe("logger", () => {
  it("writes an identical repeated error once, then one line with the count when its window ends", async () => {
    const lines: string[] = [];
    let now = 1_000_000;
    const log = createLogger("info", (l) => lines.push(l), {}, { windowMs: 200, now: () => now });
    for (let i = 0; i < 1000; i++) log.error("message store write failed", { err: "ENOSPC" });
    log.error("another error");
    log.info("info lines are never held");
    log.info("info lines are never held");
    assert.equal(lines.length, 4);
    assert.equal(log.stats().suppressed, 999);
    now += 200;
    await eventually(() => lines.length === 5, 2000, "the summary line");
    const summary = JSON.parse(lines[4]!) as Record<string, unknown>;
    assert.equal(summary["msg"], "message store write failed (999 more in the last 0 s)");
    assert.equal(summary["repeated"], 999);
    assert.equal(summary["err"], "ENOSPC");
    // A new window: the next occurrence is written again.
    log.error("message store write failed", { err: "ENOSPC" });
    assert.equal(lines.length, 6);
  });

  it("states the window in seconds as the issue asks (… N more in the last 10 s)", async () => {
    const lines: string[] = [];
    let now = 0;
    const log = createLogger("warn", (l) => lines.push(l), {}, { now: () => now });
    log.warn("x");
    log.warn("x");
    log.warn("x");
    now = 10_000;
    log.warn("x"); // the window is over: its count is written first, then the line itself
    assert.deepEqual(
      lines.map((l) => (JSON.parse(l) as { msg: string }).msg),
      ["x", "x (2 more in the last 10 s)", "x"],
    );
  });

  it("drops and counts a line its sink cannot take, and says so once writing works again", () => {
    const lines: string[] = [];
    let broken = true;
    const log = createLogger("info", (l) => {
      if (broken) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      lines.push(l);
    });
    for (let i = 0; i < 5; i++) assert.doesNotThrow(() => log.info(`line ${i}`));
    assert.equal(log.stats().dropped, 5);
    broken = false;
    log.child({ connection: "c1" }).info("back");
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /"msg":"log lines were dropped: the log could not be written","dropped":5/);
    assert.match(lines[1]!, /"msg":"back","connection":"c1"/);
  });
});
