// Listeners by importance (src/listeners): a side listener that cannot bind is retried in the
// background and reported, and never stops the broker; the AMQP listener is essential.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { startBroker, type RunningBroker } from "../../src/start-broker.js";
import { SideListeners } from "../../src/listeners/side-listeners.js";
import { createLogger, type Logger } from "../../src/logging/logger.js";
import { eventually } from "../helpers/wait.js";

const GUEST = { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` };
const FAST_RETRY = { firstDelayMs: 50, maxDelayMs: 200, logEveryMs: 10_000 };

/** Holds a loopback port as another program would. */
async function takePort(port = 0): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const a = server.address();
  return { port: typeof a === "object" && a ? a.port : port, server };
}

const release = (s: Server): Promise<void> => new Promise((resolve) => s.close(() => resolve()));

/** A logger that records its error lines (the rate limit is counted on them). */
function recordingLogger(): { logger: Logger; errors: Array<Record<string, unknown>> } {
  const errors: Array<Record<string, unknown>> = [];
  const base = createLogger("silent");
  const logger: Logger = Object.assign(Object.create(base) as Logger, {
    error: (_msg: string, fields?: Record<string, unknown>) => void errors.push(fields ?? {}),
  });
  return { logger, errors };
}

describe("side listeners", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("retries a taken port with back-off, logs once per 10 s, and binds when the port frees", async () => {
    const taken = await takePort();
    const { logger, errors } = recordingLogger();
    const side = new SideListeners(logger, FAST_RETRY);
    cleanups.push(() => side.close());
    await side.add({
      protocol: "http/prometheus",
      port: taken.port,
      open: async () => {
        const held = await takePort(taken.port);
        return { port: held.port, close: () => release(held.server) };
      },
    });
    const [down] = side.statuses();
    assert.equal(down!.up, false);
    assert.equal(down!.port, taken.port);
    assert.match(down!.reason!, /EADDRINUSE/);
    assert.equal(side.portOf("http/prometheus"), null);
    // Several retries happen (50, 100, 200, 200 ms …) but only one line is logged.
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(errors.length, 1, "one log line per listener per 10 s");
    assert.equal(errors[0]!["port"], taken.port);
    assert.ok((errors[0]!["why"] as string).includes("EADDRINUSE"));
    await release(taken.server);
    await eventually(() => side.portOf("http/prometheus") === taken.port, 3000, "the listener binds once the port is free");
    assert.deepEqual(side.statuses(), [{ protocol: "http/prometheus", port: taken.port, up: true, reason: null }]);
  });

  it("a broker whose HTTP and Prometheus ports are taken serves AMQP, reports both, and binds them when freed", async () => {
    const httpTaken = await takePort();
    const metricsTaken = await takePort();
    const dir = mkdtempSync(join(tmpdir(), "coney-side-"));
    const broker: RunningBroker = await startBroker({
      amqpPort: 0, httpPort: httpTaken.port, prometheusPort: metricsTaken.port, mqttPort: null, webMqttPort: null, stompPort: null, webStompPort: null, streamPort: null, streamTlsPort: null, bind: "127.0.0.1", dataDir: dir, logLevel: "silent", listenerRetry: FAST_RETRY,
    });
    cleanups.push(async () => {
      await broker.close();
      rmSync(dir, { recursive: true, force: true });
    });
    // AMQP works although both side ports are taken.
    const conn = await amqp.connect(`amqp://guest:guest@127.0.0.1:${broker.amqpPort}`);
    const ch = await conn.createChannel();
    await ch.assertQueue("side-q");
    assert.ok(ch.sendToQueue("side-q", Buffer.from("x")));
    await conn.close();
    assert.equal(broker.httpPort, null);
    assert.equal(broker.prometheusPort, null);
    const down = broker.listeners().filter((l) => !l.up).map((l) => l.protocol).sort();
    assert.deepEqual(down, ["http", "http/prometheus"]);

    // The Prometheus port frees first: its gauge shows the HTTP listener down.
    await release(metricsTaken.server);
    await eventually(() => broker.prometheusPort === metricsTaken.port, 3000, "Prometheus binds");
    const scrape = await (await fetch(`http://127.0.0.1:${metricsTaken.port}/metrics`)).text();
    assert.match(scrape, new RegExp(`coney_listener_up\\{protocol="http",port="${httpTaken.port}"\\} 0`));
    assert.match(scrape, new RegExp(`coney_listener_up\\{protocol="http/prometheus",port="${metricsTaken.port}"\\} 1`));
    assert.match(scrape, new RegExp(`coney_listener_up\\{protocol="amqp",port="${broker.amqpPort}"\\} 1`));

    // Then the HTTP port: the API comes up, and its listener checks see every listener.
    await release(httpTaken.server);
    await eventually(() => broker.httpPort === httpTaken.port, 3000, "the management API binds");
    const api = (path: string) => fetch(`http://127.0.0.1:${httpTaken.port}${path}`, { headers: GUEST });
    const ok = await api(`/api/health/checks/port-listener/${metricsTaken.port}`);
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { status: "ok", port: metricsTaken.port });
    assert.equal((await api("/api/health/checks/protocol-listener/http")).status, 200);
    const overview = (await (await api("/api/overview")).json()) as { listeners: Array<{ protocol: string; port: number }> };
    assert.deepEqual(overview.listeners.map((l) => l.protocol).sort(), ["amqp", "http", "http/prometheus"]);
  });

  it("the listener checks name a side listener that cannot bind", async () => {
    const taken = await takePort();
    const dir = mkdtempSync(join(tmpdir(), "coney-side-"));
    const broker = await startBroker({
      amqpPort: 0, httpPort: 0, prometheusPort: taken.port, mqttPort: null, webMqttPort: null, stompPort: null, webStompPort: null, streamPort: null, streamTlsPort: null, bind: "127.0.0.1", dataDir: dir, logLevel: "silent", listenerRetry: FAST_RETRY,
    });
    cleanups.push(async () => {
      await broker.close();
      await release(taken.server);
      rmSync(dir, { recursive: true, force: true });
    });
    const api = (path: string) => fetch(`http://127.0.0.1:${broker.httpPort}${path}`, { headers: GUEST });
    const byPort = await api(`/api/health/checks/port-listener/${taken.port}`);
    assert.equal(byPort.status, 503);
    const body = (await byPort.json()) as { status: string; reason: string; missing: number; ports: number[] };
    assert.equal(body.status, "failed");
    assert.equal(body.missing, taken.port);
    assert.match(body.reason, /http\/prometheus cannot listen on \d+ \(EADDRINUSE/);
    assert.deepEqual(body.ports.sort(), [broker.amqpPort, broker.httpPort!].sort());
    const byProtocol = await api(`/api/health/checks/protocol-listener/${encodeURIComponent("http/prometheus")}`);
    assert.equal(byProtocol.status, 503);
    assert.match(((await byProtocol.json()) as { reason: string }).reason, /EADDRINUSE/);
  });

  it("the AMQP listener is essential: a broker that cannot bind it does not start, and leaves nothing open", async () => {
    const taken = await takePort();
    const dir = mkdtempSync(join(tmpdir(), "coney-side-"));
    cleanups.push(async () => {
      await release(taken.server);
      rmSync(dir, { recursive: true, force: true });
    });
    const httpPort = await takePort();
    await release(httpPort.server);
    await assert.rejects(
      startBroker({ amqpPort: taken.port, httpPort: httpPort.port, prometheusPort: null, mqttPort: null, webMqttPort: null, stompPort: null, webStompPort: null, streamPort: null, streamTlsPort: null, bind: "127.0.0.1", dataDir: dir, logLevel: "silent" }),
      /EADDRINUSE/,
    );
    // Nothing was left listening: the HTTP port is free again.
    const again = await takePort(httpPort.port);
    await release(again.server);
  });
});
