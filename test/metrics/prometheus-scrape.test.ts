// A real Prometheus scrapes Coney: started on loopback with a 1 s scrape of Coney's ephemeral
// metrics port, then asked over its HTTP API for what it scraped, including the RabbitMQ-Overview
// dashboard's join on rabbitmq_identity_info.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { eventually, withTimeout } from "../helpers/wait.js";
import { startMetricsBroker, type MetricsBroker } from "./metrics-fixture.js";
import { freePort, requireProgram } from "./prometheus-tools.js";

interface QueryResult {
  readonly status: string;
  readonly data: { readonly result: Array<{ readonly metric: Record<string, string>; readonly value: [number, string] }> };
}

describe("a real Prometheus scraping Coney", () => {
  let b: MetricsBroker;
  let dir: string;
  let prometheus: ChildProcess | null = null;
  let promUrl: string;
  let log = "";

  before(async () => {
    const binary = requireProgram("prometheus");
    b = await startMetricsBroker();
    dir = mkdtempSync(join(tmpdir(), "coney-prometheus-"));
    writeFileSync(
      join(dir, "prometheus.yml"),
      ["global:", "  scrape_interval: 1s", "  evaluation_interval: 1s", "scrape_configs:", "  - job_name: coney", "    static_configs:", `      - targets: ["127.0.0.1:${b.prometheusPort}"]`, ""].join("\n"),
    );
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(binary, [`--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`, "--log.level=warn"], { stdio: ["ignore", "ignore", "pipe"] });
    prometheus.stderr!.on("data", (d: Buffer) => (log += d.toString()));
    prometheus.on("exit", (code) => (log += `\n[prometheus exited with ${code}]`));
  });

  after(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once("exit", resolve));
      prometheus.kill("SIGTERM");
      await withTimeout(exited, 10_000, "prometheus to stop").catch(() => prometheus!.kill("SIGKILL"));
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    await b?.close();
  });

  async function query(promql: string): Promise<QueryResult["data"]["result"]> {
    const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await res.json()) as QueryResult;
    assert.equal(body.status, "success", `${promql}: ${JSON.stringify(body)}`);
    return body.data.result;
  }

  /** Polls a query until its single value equals `want` (Prometheus scrapes every second). */
  async function untilValue(promql: string, want: string): Promise<void> {
    let last = "";
    await eventually(
      async () => {
        try {
          const r = await query(promql);
          last = JSON.stringify(r);
          return r.length === 1 && r[0]!.value[1] === want;
        } catch (err) {
          last = String(err); // Prometheus still starting
          return false;
        }
      },
      30_000,
      `${promql} = ${want} (last answer: ${last}; prometheus log: ${log})`,
    );
  }

  it("stores rabbitmq_queue_messages_ready as Coney reports it, and the dashboard's join works", async () => {
    const conn = await amqp.connect(b.amqpUrl);
    try {
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue("scraped", { durable: false });
      for (let i = 0; i < 3; i++) ch.sendToQueue("scraped", Buffer.from(`m${i}`));
      await ch.waitForConfirms();
      await untilValue('up{job="coney"}', "1");
      await untilValue("rabbitmq_queue_messages_ready", "3");
      // As RabbitMQ-Overview queries it (namespace is empty outside Kubernetes, as for RabbitMQ).
      const cluster = b.config.clusterName;
      await untilValue(
        `sum(rabbitmq_queue_messages_ready * on(instance, job) group_left(rabbitmq_cluster) rabbitmq_identity_info{rabbitmq_cluster="${cluster}", namespace="", rabbitmq_endpoint="aggregated"})`,
        "3",
      );
      await untilValue(`rabbitmq_global_messages_received_total{protocol="amqp091"}`, "3");
    } finally {
      await conn.close();
    }
  });
});
