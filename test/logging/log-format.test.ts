// Log lines for people and for shippers: the text line's shape, quoting and colours; JSON lines
// unchanged; and the broker's own choice on a real terminal (util-linux `script` gives it a pty).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { jsonLine, resolveLogFormat, textLine } from "../../src/logging/log-format.js";
import { createLogger } from "../../src/logging/logger.js";

const T = new Date("2026-11-29T01:20:03.123Z");

describe("log line formats", () => {
  it("text: time, level, message, then key=value with values quoted only when they must be", () => {
    const line = textLine(T, "info", "Coney started", { amqp_port: 5672, data_dir: "./coney-data", note: "two words", empty: "", list: [1, 2], gone: undefined }, false);
    assert.equal(line, '2026-11-29 01:20:03.123 [info] Coney started amqp_port=5672 data_dir=./coney-data note="two words" empty="" list=[1,2]\n');
  });

  it("text: colours the level only when asked, and puts an error's stack under its one event line", () => {
    assert.equal(textLine(T, "warn", "w", {}, true), "2026-11-29 01:20:03.123 \x1b[33m[warn]\x1b[0m w\n");
    const err = new Error("disk full");
    const lines = textLine(T, "error", "write failed", { err }, false).split("\n");
    assert.equal(lines[0], '2026-11-29 01:20:03.123 [error] write failed err="disk full"');
    assert.match(lines[1]!, /^ {2}at /);
  });

  it("json: one object per line, time first, as before", () => {
    assert.equal(jsonLine(T, "info", "m", { a: 1, n: 2n }), '{"time":"2026-11-29T01:20:03.123Z","level":"info","msg":"m","a":1,"n":"2"}\n');
  });

  it("auto picks text on a terminal and JSON elsewhere; an explicit choice wins", () => {
    assert.equal(resolveLogFormat("auto", true), "text");
    assert.equal(resolveLogFormat("auto", false), "json");
    assert.equal(resolveLogFormat("json", true), "json");
    assert.equal(resolveLogFormat("text", false), "text");
  });

  it("a logger told to write text does so, repeats and dropped-line notices included", () => {
    const lines: string[] = [];
    const log = createLogger("info", (l) => lines.push(l), { node: "n1" }, { format: "text" });
    log.info("hello", { port: 1 });
    assert.match(lines[0]!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \[info\] hello node=n1 port=1\n$/);
  });
});

/** Runs `coney` with `args` under a pseudo-terminal until it logs "Coney started"; returns what the terminal showed. */
async function startedOnTerminal(args: string[]): Promise<string> {
  const bin = new URL("../../../bin/coney.js", import.meta.url).pathname;
  // In memory: no data directory to remove while the broker is still closing it.
  const command = [process.execPath, bin, "--in-memory", "true", "--amqp-port", "0", "--http-port", "off", "--prometheus-port", "off", "--mqtt-port", "off", "--web-mqtt-port", "off", "--stream-port", "off", "--stomp-port", "off", "--web-stomp-port", "off", "--bind", "127.0.0.1", ...args].map((a) => `'${a}'`).join(" ");
  // Its own process group, so the stop reaches both script and the broker it runs.
  const child = spawn("script", ["-qfec", command, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"], detached: true });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  let out = "";
  try {
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no "Coney started" within 20 s; the terminal showed:\n${out}`)), 20_000);
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("Coney started")) {
          clearTimeout(t);
          resolve();
        }
      });
      child.on("exit", (code) => reject(new Error(`script exited ${code}:\n${out}`)));
    });
  } finally {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // already gone
    }
    await exited;
  }
  return out;
}

describe("the broker's log on a terminal", () => {
  it("is coloured text lines by default on a terminal", async () => {
    const out = await startedOnTerminal([]);
    const started = out.split(/\r?\n/).find((l) => l.includes("Coney started"))!;
    const ESC = "\x1b";
    assert.ok(started.includes(` ${ESC}[32m[info]${ESC}[0m Coney started amqp_port=`), started);
    assert.match(started, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} /);
  });

  it("is JSON lines on a terminal when asked (--log-format json)", async () => {
    const out = await startedOnTerminal(["--log-format", "json"]);
    const started = out.split(/\r?\n/).find((l) => l.includes("Coney started"))!;
    assert.equal((JSON.parse(started) as { msg: string }).msg, "Coney started");
  });
});
