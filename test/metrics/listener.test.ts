// The Prometheus listener: its flag and environment variable, its paths and methods, gzip, and
// HTTPS when the management API uses TLS.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { get as httpsGet } from "node:https";
import { gunzipSync } from "node:zlib";
import { ConfigError, loadConfig } from "../../src/config/load-config.js";
import { makeTestCa } from "../helpers/test-ca.js";
import amqp from "amqplib";
import { startMetricsBroker, valueOf } from "./metrics-fixture.js";
import { samplesOf } from "./exposition-parser.js";
import { startTestBroker } from "../helpers/broker.js";
import { eventually } from "../helpers/wait.js";

describe("Prometheus listener", () => {
  it("--prometheus-port / CONEY_PROMETHEUS_PORT: default 15692, 'off' disables, 0 is ephemeral, bad values are refused", () => {
    assert.equal(loadConfig([], {}).prometheusPort, 15692);
    assert.equal(loadConfig(["--prometheus-port", "off"], {}).prometheusPort, null);
    assert.equal(loadConfig([], { CONEY_PROMETHEUS_PORT: "0" }).prometheusPort, 0);
    assert.equal(loadConfig(["--prometheus-port", "9419"], { CONEY_PROMETHEUS_PORT: "off" }).prometheusPort, 9419);
    assert.throws(() => loadConfig(["--prometheus-port", "http"], {}), (e: unknown) => e instanceof ConfigError && /--prometheus-port: 'http' is not a port number/.test(e.message));
  });

  it("off: no listener, prometheusPort is null", async () => {
    const b = await startMetricsBroker({ prometheusPort: null });
    try {
      assert.equal(b.prometheusPort, null);
    } finally {
      await b.close();
    }
  });

  it("serves the text format, gzip on request, 404 elsewhere, 405 for other methods", async () => {
    const b = await startMetricsBroker();
    try {
      const plain = await fetch(`${b.metricsUrl}/metrics`, { headers: { "accept-encoding": "identity" } });
      assert.equal(plain.status, 200);
      assert.equal(plain.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
      assert.equal(plain.headers.get("content-encoding"), null);
      const text = await plain.text();
      assert.match(text, /^rabbitmq_queues 0$/m);

      // Prometheus asks for gzip; the body is the same text compressed.
      const raw = await fetchRaw(`${b.metricsUrl}/metrics/per-object`, { "accept-encoding": "gzip" });
      assert.equal(raw.encoding, "gzip");
      assert.match(gunzipSync(raw.body).toString(), /^rabbitmq_identity_info\{.*rabbitmq_endpoint="per-object"\} 1$/m);

      const head = await fetch(`${b.metricsUrl}/metrics`, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal((await fetch(`${b.metricsUrl}/api/overview`)).status, 404);
      const post = await fetch(`${b.metricsUrl}/metrics`, { method: "POST" });
      assert.equal(post.status, 405);
      assert.equal(post.headers.get("allow"), "GET, HEAD");
    } finally {
      await b.close();
    }
  });

  it("/metrics/cluster on a single node: /metrics's figures (per-node families labelled with the node), itself reporting, gzip and HEAD alike", async () => {
    const b = await startMetricsBroker();
    const conn = await amqp.connect(b.amqpUrl);
    try {
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue("single-agg", { durable: false });
      for (let i = 0; i < 3; i++) ch.sendToQueue("single-agg", Buffer.from(`m${i}`));
      await ch.waitForConfirms();
      const own = await b.scrape("/metrics");
      const whole = await b.scrape("/metrics/cluster");
      for (const name of ["rabbitmq_queues", "rabbitmq_queue_messages", "rabbitmq_connections", "rabbitmq_channels", "rabbitmq_channel_messages_published_total"]) {
        assert.equal(valueOf(whole, name), valueOf(own, name), name);
      }
      assert.equal(valueOf(whole, "rabbitmq_global_messages_received_total", { protocol: "amqp091" }), 3);
      const node = samplesOf(own, "rabbitmq_identity_info")[0]!.labels["rabbitmq_node"]!;
      assert.equal(typeof valueOf(whole, "process_start_time_seconds", { rabbitmq_node: node }), "number");
      assert.equal(valueOf(whole, "coney_cluster_nodes", { state: "reporting" }), 1);
      assert.equal(valueOf(whole, "coney_cluster_nodes", { state: "stale" }), 0);
      assert.equal(valueOf(whole, "rabbitmq_identity_info", { rabbitmq_node: node, rabbitmq_endpoint: "cluster" }), 1);
      const perObject = await b.scrape("/metrics/cluster/per-object");
      assert.equal(valueOf(perObject, "rabbitmq_queue_messages", { queue: "single-agg" }), 3);
      const raw = await fetchRaw(`${b.metricsUrl}/metrics/cluster`, { "accept-encoding": "gzip" });
      assert.equal(raw.encoding, "gzip");
      assert.match(gunzipSync(raw.body).toString(), /^coney_cluster_nodes\{state="reporting"\} 1$/m);
      assert.equal((await fetch(`${b.metricsUrl}/metrics/cluster/`, { method: "HEAD" })).status, 200);
      assert.equal((await fetch(`${b.metricsUrl}/metrics/cluster`, { method: "POST" })).status, 405);
    } finally {
      await conn.close();
      await b.close();
    }
  });

  it("uses HTTPS with the broker's certificate when the management API does", async () => {
    const ca = makeTestCa();
    const b = await startMetricsBroker({ tlsCert: ca.serverCert, tlsKey: ca.serverKey, tlsCa: ca.caCert, amqpsPort: 0, httpTls: true });
    try {
      const body = await new Promise<string>((resolve, reject) => {
        httpsGet({ host: "127.0.0.1", port: b.prometheusPort!, path: "/metrics", ca: ca.pem(ca.caCert) }, (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (d: string) => (text += d));
          res.on("end", () => resolve(text));
        }).on("error", reject);
      });
      assert.match(body, /^rabbitmq_identity_info\{/m);
    } finally {
      await b.close();
    }
  });
});

/** fetch() decompresses on its own; this reads the bytes as sent. */
function fetchRaw(url: string, headers: Record<string, string>): Promise<{ encoding: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (d: Buffer) => chunks.push(d));
      res.on("end", () => resolve({ encoding: res.headers["content-encoding"], body: Buffer.concat(chunks) }));
    })
      .on("error", reject)
      .end();
  });
}

describe("Prometheus port taken", () => {
  // Listeners by importance (src/listeners): the metrics port is a side listener. A taken one is
  // retried in the background and reported; the broker serves on (test/listeners covers the retry).
  it("starts the broker anyway, reports the listener down, and binds it once the port is free", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const taken = (blocker.address() as { port: number }).port;
    const dataDir = mkdtempSync(join(tmpdir(), "coney-metrics-taken-"));
    const broker = await startTestBroker({ prometheusPort: taken, dataDir, listenerRetry: { firstDelayMs: 50, maxDelayMs: 100, logEveryMs: 10_000 } });
    try {
      assert.equal(broker.prometheusPort, null);
      const status = broker.listeners().find((l) => l.protocol === "http/prometheus");
      assert.deepEqual({ ...status, reason: status?.reason?.split(":")[0] }, { protocol: "http/prometheus", port: taken, up: false, reason: "EADDRINUSE" });
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
      await eventually(() => broker.listeners().some((l) => l.protocol === "http/prometheus" && l.up), 3000, "the metrics listener binds");
      const res = await fetch(`http://127.0.0.1:${taken}/metrics`);
      assert.equal(res.status, 200);
    } finally {
      blocker.close();
      await broker.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
