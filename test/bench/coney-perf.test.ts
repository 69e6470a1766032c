// The load generator runs end to end against a real broker: producer and consumer processes,
// counts and latencies printed. Figures are not asserted beyond being present and non-zero:
// performance is measured by the benchmark, not by tests.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker } from "../helpers/broker.js";
import { printedRate, runPerfCli } from "./perf-cli.js";
import { medianCell } from "../../src/bench/size-sweep.js";


describe("coney-perf", () => {
  it("publishes and consumes for the duration and prints rates, latency and the broker's memory", async () => {
    const broker = await startTestBroker();
    try {
      const { stdout } = await runPerfCli(["--uri", broker.amqpUrl, "-z", "1", "--confirm", "50", "--persistent", "--broker-pid", String(process.pid)]);
      const rate = (label: string): number => printedRate(stdout, label);
      assert.ok(rate("published") > 0, stdout);
      assert.ok(rate("consumed") > 0, stdout);
      assert.match(stdout, /latency:\s+p50 [\d.]+ ms, p99 [\d.]+ ms/);
      assert.match(stdout, /broker RSS: [\d.]+ MiB/);
      assert.equal(broker.broker.vhosts.get("/")!.queues.size, 0, "the run deletes what it declared");
    } finally {
      await broker.close();
    }
  });

  it("runs selected scenarios of the list and prints one table", async () => {
    const broker = await startTestBroker();
    try {
      const http = `http://guest:guest@127.0.0.1:${broker.httpPort}`;
      const { stdout } = await runPerfCli(["all", "--uri", broker.amqpUrl, "--http", http, "--name", "coney", "-z", "1", "--queue-count", "50", "--connection-count", "5", "--stats-settle", "0", "--only", "1p1c-16b,declare,list-page,cleanup,startup"]);
      const lines = stdout.trim().split("\n");
      assert.equal(lines[0], "| scenario | coney |");
      assert.equal(lines.length, 2 + 5, stdout);
      assert.doesNotMatch(stdout, /error:/);
      assert.match(stdout, /declare 50 queues \(10 channels\) \| [\d.]+ s \|/);
      assert.match(stdout, /start to accepting connections.*\| \d+ ms \|/);
    } finally {
      await broker.close();
    }
  });

  it("sweeps body sizes, transient and persistent, with the broker's CPU per message and peak memory", async () => {
    const broker = await startTestBroker();
    try {
      // The broker runs in this process: its CPU and RSS are this process's.
      const { stdout, stderr } = await runPerfCli(["sizes", "--uri", broker.amqpUrl, "--broker-pid", String(process.pid), "--name", "coney", "--sizes", "16,70000", "-z", "1", "--confirm", "20", "--repeat", "2"]);
      const lines = stdout.trim().split("\n");
      assert.equal(lines[0], "| body | mode | prefetch | coney msg/s | coney CPU/msg | coney peak RSS |", stdout);
      assert.equal(lines.length, 2 + 4, stdout);
      assert.match(lines[2]!, /^\| 16 B \| transient \| 1000 \| [\d,]+\/s \| [\d.]+ µs \| \d+ MiB \|$/);
      assert.match(lines[3]!, /^\| 70000 B \| transient \| 958 \| [\d,]+\/s \| [\d.]+ µs \| \d+ MiB \|$/);
      assert.match(lines[5]!, /^\| 70000 B \| persistent, confirm 20 \| 958 \| [\d,]+\/s \|/);
      for (const line of lines.slice(2)) assert.doesNotMatch(line, /\| 0\/s \|/, "every run moved messages");
      // Two runs per cell, each with the clients' own CPU per message; the table shows their medians.
      // Each also says how busy the machine was, and persistent ones what the broker wrote to storage.
      const runs = stderr.match(/: published: .*; load generator CPU [\d.]+ µs\/msg; machine busy \d+ % \(softirq \d+ %, iowait \d+ %\)(; broker wrote [\d.]+ KiB\/msg to storage)?$/gm) ?? [];
      assert.equal(runs.length, 2 * 4, stderr);
      const persistentRuns = stderr.split("\n").filter((l) => l.includes(" persistent: "));
      assert.equal(persistentRuns.length, 2 * 2, stderr);
      for (const l of persistentRuns) assert.match(l, /; broker wrote [\d.]+ KiB\/msg to storage$/);
      assert.equal(runs.filter((r) => r.includes("to storage")).length, 2 * 2, "only persistent runs report storage writes");
      assert.equal(broker.broker.vhosts.get("/")!.queues.size, 0, "the sweep deletes what it declared");
    } finally {
      await broker.close();
    }
  });

  it("relay: measures the CPU floor of writing and reading bodies over loopback, whole and in frames", async () => {
    // 1,000 bodies per measurement at the least; the reader checks it got every byte written.
    const { stdout } = await runPerfCli(["relay", "--sizes", "65536,100000", "--frame-max", "8192", "--bytes", "1"]);
    const lines = stdout.trim().split("\n");
    assert.equal(lines[0], "CPU per body in µs (user + system); framed writes use frame_max 8192", stdout);
    assert.equal(lines[1], "| body | write, whole | write, framed | read | floor (read + framed write) |");
    assert.equal(lines.length, 3 + 2, stdout);
    assert.match(lines[3]!, /^\| 64 KB \| \d+ \+ \d+ \| \d+ \+ \d+ \| \d+ \+ \d+ \| [1-9]\d* \|$/);
    assert.match(lines[4]!, /^\| 100000 B \| /);
  });

  it("shovel: fills a source queue and times a shovel moving it (the shovel deletes itself when done)", async () => {
    const broker = await startTestBroker();
    try {
      const http = `http://guest:guest@127.0.0.1:${broker.httpPort}`;
      const { stdout } = await runPerfCli(["shovel", "--src-uri", broker.amqpUrl, "--shovel-src-uri", "amqp://", "--dest-check-uri", broker.amqpUrl, "--http", http, "-n", "500", "-s", "64"]);
      assert.match(stdout, /^shovel: 500 persistent 64 B messages on-confirm \(prefetch 1000\) in [\d.]+ s = \d+ msg\/s, 500 in the destination queue$/m);
      assert.equal(broker.shovels.list().length, 0, "the shovel deleted itself");
    } finally {
      await broker.close();
    }
  });

  it("spread: the aggregate rate and CPU per message over the broker's node processes, each node's share", async () => {
    const broker = await startTestBroker();
    try {
      const http = `http://guest:guest@127.0.0.1:${broker.httpPort}`;
      const { stdout } = await runPerfCli(["spread", "--uri", broker.amqpUrl, "--http", http, "--queues", "2", "-z", "1"]);
      assert.match(stdout, new RegExp(`^nodes: \\S+ \\(pid ${process.pid}\\)$`, "m"));
      assert.match(stdout, /^\| aggregate \| [1-9]\d* \| [1-9]\d* \| [\d.]+ µs \| 100% \|$/m);
      // One node: nothing is forwarded, and the run says so rather than printing a figure.
      assert.match(stdout, /^local against forwarded: n\/a \(the broker has one node\)$/m);
      assert.equal(broker.broker.vhosts.get("/")!.queues.size, 0, "the run deletes what it declared");
    } finally {
      await broker.close();
    }
  });

  it("spread --pair-only: no aggregate run, only the local-against-forwarded pair", async () => {
    const broker = await startTestBroker();
    try {
      const http = `http://guest:guest@127.0.0.1:${broker.httpPort}`;
      const { stdout } = await runPerfCli(["spread", "--uri", broker.amqpUrl, "--http", http, "--pair-only", "-z", "1"]);
      assert.doesNotMatch(stdout, /^\| aggregate/m);
      assert.match(stdout, /^local against forwarded: n\/a \(the broker has one node\)$/m);
    } finally {
      await broker.close();
    }
  });

  it("reports the median rate and CPU of a cell's runs and the highest RSS", () => {
    const cell = (rate: number, cpu: number, rss: number) => ({ consumedPerSecond: rate, cpuMicrosPerMessage: cpu, peakRss: rss });
    assert.deepEqual(medianCell([cell(10, 5, 100), cell(30, 1, 300), cell(20, 9, 200)]), cell(20, 5, 300));
    assert.deepEqual(medianCell([cell(10, 4, 100), cell(20, 6, 50)]), cell(15, 5, 100));
    const noPid = medianCell([cell(10, Number.NaN, Number.NaN)]);
    assert.ok(Number.isNaN(noPid.cpuMicrosPerMessage) && Number.isNaN(noPid.peakRss));
  });
});
