/**
 * Test harness: a real broker on ephemeral loopback ports with its own temporary data dir.
 * Set CONEY_TEST_LOG=debug to see the broker's logs while a test runs.
 * With CONEY_TEST_STORE=memory the broker is coney/testing's in-memory test broker instead (no
 * data dir): test/testing/client-suites.test.ts runs the client suites that way (issue 29).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBroker, type RunningBroker, type StartOptions } from "../../src/start-broker.js";
import type { LogLevel } from "../../src/logging/logger.js";
import { startTestBroker as startInMemoryBroker } from "../../src/testing/index.js";

export interface TestBroker extends RunningBroker {
  readonly amqpUrl: string;
  readonly httpUrl: string;
  readonly dataDir: string;
  /** amqp://user:pass@127.0.0.1:port/vhost */
  urlFor(user: string, pass: string, vhost?: string): string;
}

export async function startTestBroker(options: StartOptions = {}): Promise<TestBroker> {
  if (process.env["CONEY_TEST_STORE"] === "memory" && options.dataDir === undefined) return startInMemory(options);
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "coney-test-"));
  const running = await startBroker({
    amqpPort: 0,
    httpPort: 0,
    // Tests that read metrics ask for port 0; the rest do not open the listener.
    prometheusPort: null,
    // Tests that speak MQTT ask for port 0; the rest do not open the listeners.
    mqttPort: null,
    mqttsPort: null,
    webMqttPort: null,
    // Tests that speak STOMP ask for port 0.
    stompPort: null,
    stompsPort: null,
    webStompPort: null,
    // Tests that speak the stream protocol ask for port 0.
    streamPort: null,
    streamTlsPort: null,
    streamAdvertisedHost: "127.0.0.1",
    bind: "127.0.0.1",
    logLevel: (process.env["CONEY_TEST_LOG"] as LogLevel | undefined) ?? "silent",
    ...options,
    dataDir,
  });
  const urlFor = (user: string, pass: string, vhost = "/"): string =>
    `amqp://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${running.amqpPort}/${encodeURIComponent(vhost)}`;
  return {
    ...running,
    amqpUrl: urlFor("guest", "guest"),
    httpUrl: `http://127.0.0.1:${running.httpPort ?? 0}`,
    dataDir,
    urlFor,
    async close() {
      await running.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The same harness over coney/testing: the listeners the options ask for, nothing on disk. */
async function startInMemory(options: StartOptions): Promise<TestBroker> {
  const { amqpPort: _a, httpPort, prometheusPort, mqttPort, mqttsPort: _s, webMqttPort, streamPort, streamTlsPort: _ss, stompPort, stompsPort: _st, webStompPort, bind: _b, dataDir: _d, inMemory: _m, logLevel, ...rest } = options;
  const test = await startInMemoryBroker({
    http: httpPort !== null,
    prometheus: prometheusPort === 0,
    mqtt: mqttPort === 0,
    webMqtt: webMqttPort === 0,
    stream: streamPort === 0,
    stomp: stompPort === 0,
    webStomp: webStompPort === 0,
    logLevel: logLevel ?? (process.env["CONEY_TEST_LOG"] as LogLevel | undefined) ?? "silent",
    vhost: rest.defaultVhost ?? "/",
    user: { username: rest.defaultUser ?? "guest", password: rest.defaultPass ?? "guest" },
    broker: rest,
  });
  const running = test.running;
  const urlFor = (user: string, pass: string, vhost = "/"): string => test.urlFor({ username: user, password: pass, vhost });
  return { ...running, amqpUrl: urlFor("guest", "guest"), httpUrl: `http://127.0.0.1:${running.httpPort ?? 0}`, dataDir: "", urlFor, close: () => test.close() };
}
