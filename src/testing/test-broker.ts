/**
 * `startTestBroker`: the production broker, in memory, for other projects' tests. It is
 * `startBroker` with `inMemory` (no data dir, no file read or written), AMQP on an ephemeral
 * loopback port, other listeners only when asked, and nothing printed unless asked. What it adds
 * is what tests otherwise write by hand: reset between tests, a vhost per test, looking into a
 * queue without consuming, and faults to provoke (closed connections, blocked publishers).
 */
import { randomBytes } from "node:crypto";
import { startBroker, type RunningBroker } from "../start-broker.js";
import { resetBroker } from "./broker-reset.js";
import { probeQueue, waitUntil, type QueueProbe, type TestMessage } from "./queue-probe.js";
import type { TestBrokerOptions } from "./test-broker-options.js";
import { amqpUrlOf, type TestBrokerAddress, type TestVhost } from "./test-vhost.js";

/**
 * A running test broker. From its address: `amqpUrl` (amqp://user:password@127.0.0.1:port/vhost,
 * for amqplib, @cloudamqp/amqp-client, rabbitmq-client), `httpUrl` (the management API under
 * /api; null unless `http` was asked for) with `httpAuthorization` (Basic, the broker's user).
 */
export interface TestBroker extends TestBrokerAddress {
  /** mqtt://127.0.0.1:port, null unless `mqtt` was asked for. */
  readonly mqttUrl: string | null;
  /** ws://127.0.0.1:port/ws, null unless `webMqtt` was asked for. */
  readonly webMqttUrl: string | null;
  /** The STOMP port, null unless `stomp: true`. */
  readonly stompPort: number | null;
  /** ws://127.0.0.1:port/ws (Web STOMP), null unless `webStomp` was asked for. */
  readonly webStompUrl: string | null;
  /** The native stream protocol's port (rabbitmq-stream-js-client's `port`), null unless `stream: true`. */
  readonly streamPort: number | null;
  /** http://127.0.0.1:port/metrics, null unless `prometheus` was asked for. */
  readonly prometheusUrl: string | null;
  readonly vhost: string;
  /** The URLs and credentials as plain data, for test workers (Vitest `provide`, Jest's environment): see `createTestVhost`. */
  readonly address: TestBrokerAddress;
  /** The running broker underneath (its domain model, alarms, listeners). */
  readonly running: RunningBroker;
  /** An AMQP URL for another user or vhost. */
  urlFor(o: { vhost?: string; username?: string; password?: string }): string;
  /** Empties everything (connections closed; vhosts, users, parameters removed) and creates the defaults again. */
  reset(): void;
  /** A new vhost, on which the test broker's user has full permissions: one per test, for tests that run in parallel. */
  vhostPerTest(): TestVhost;
  /** A queue's contents and counters, read without consuming. */
  queue(name: string, vhost?: string): QueueProbe;
  /** Resolves with the queue's ready messages once it holds at least `count`; rejects after `timeoutMs` (default 5000). */
  waitForMessages(queue: string, count: number, o?: { vhost?: string; timeoutMs?: number }): Promise<TestMessage[]>;
  /** Closes every client connection as an operator would (CONNECTION_FORCED); returns how many. */
  closeConnections(reason?: string): number;
  /**
   * Raises the memory alarm, as RabbitMQ does when `vm_memory_high_watermark` is set to 0:
   * publishing connections get connection.blocked and are not read until `unblockPublishers`.
   */
  blockPublishers(): void;
  unblockPublishers(): void;
  close(): Promise<void>;
}

let vhostCounter = 0;

export async function startTestBroker(options: TestBrokerOptions = {}): Promise<TestBroker> {
  const user = options.user === "random"
    ? { username: `test-${randomBytes(4).toString("hex")}`, password: randomBytes(12).toString("base64url") }
    : (options.user ?? { username: "guest", password: "guest" });
  const vhost = options.vhost ?? "/";
  const running = await startBroker({
    ...options.broker,
    inMemory: true,
    bind: "127.0.0.1",
    amqpPort: 0,
    httpPort: options.http ? 0 : null,
    prometheusPort: options.prometheus ? 0 : null,
    mqttPort: options.mqtt ? 0 : null,
    mqttsPort: null,
    webMqttPort: options.webMqtt ? 0 : null,
    streamPort: options.stream ? 0 : null,
    streamTlsPort: null,
    stompPort: options.stomp ? 0 : null,
    stompsPort: null,
    webStompPort: options.webStomp ? 0 : null,
    // Stream clients connect to the host Metadata names: the loopback the test broker listens on.
    streamAdvertisedHost: options.broker?.streamAdvertisedHost ?? "127.0.0.1",
    logLevel: options.logLevel ?? "silent",
    defaultUser: user.username,
    defaultPass: user.password,
    defaultVhost: vhost,
  });
  const { broker, alarms } = running;
  // The first boot hashed the password; reset() reuses that hash instead of hashing again (~0.1 ms).
  const created = broker.users.get(user.username);
  const defaultPassHash = created ? { hash: created.passwordHash, algorithm: created.hashingAlgorithm } : undefined;
  const defaults = { defaultUser: user.username, defaultPass: user.password, defaultVhost: vhost, ...(defaultPassHash ? { defaultPassHash } : {}) };
  const memHighWatermark = running.config.memHighWatermark;
  const local = (port: number | null, scheme: string, path = ""): string | null => (port === null ? null : `${scheme}://127.0.0.1:${port}${path}`);
  const address: TestBrokerAddress = {
    amqpUrl: amqpUrlOf({ ...user, amqpPort: running.amqpPort }, vhost),
    amqpPort: running.amqpPort,
    httpUrl: local(running.httpPort, "http"),
    httpAuthorization: `Basic ${Buffer.from(`${user.username}:${user.password}`).toString("base64")}`,
    username: user.username,
    password: user.password,
  };
  const urlFor = (o: { vhost?: string; username?: string; password?: string }): string => amqpUrlOf(address, o.vhost ?? vhost, o);
  return {
    ...address,
    address,
    mqttUrl: local(running.mqttPort, "mqtt"),
    webMqttUrl: local(running.webMqttPort, "ws", "/ws"),
    stompPort: running.stompPort,
    webStompUrl: local(running.webStompPort, "ws", "/ws"),
    streamPort: running.streamPort,
    prometheusUrl: local(running.prometheusPort, "http", "/metrics"),
    vhost,
    running,
    urlFor,
    reset() {
      resetBroker(broker, defaults);
      running.clearRetainedMessages();
      if (alarms.reason !== null) alarms.setLimits({ memHighWatermark });
    },
    vhostPerTest() {
      const name = `test-${process.pid}-${++vhostCounter}`;
      broker.putVhost(name, { description: "a test's own vhost (coney/testing vhostPerTest)" });
      broker.setPermission(user.username, name, { configure: ".*", write: ".*", read: ".*" });
      return {
        name,
        amqpUrl: urlFor({ vhost: name }),
        delete() {
          if (broker.vhosts.has(name)) broker.deleteVhost(name);
          return Promise.resolve();
        },
      };
    },
    queue: (name, v = vhost) => probeQueue(broker, v, name),
    async waitForMessages(queue, count, o = {}) {
      const v = o.vhost ?? vhost;
      const timeoutMs = o.timeoutMs ?? 5000;
      const probe = probeQueue(broker, v, queue);
      await waitUntil(
        () => probe.messageCount >= count,
        timeoutMs,
        () => `queue '${queue}' in vhost '${v}' has ${probe.exists ? `${probe.messageCount} ready messages` : "not been declared"}, not ${count}, after ${timeoutMs} ms`,
      );
      return probe.messages();
    },
    closeConnections(reason = "closed by the test broker") {
      const all = broker.connections.list();
      for (const c of all) c.forceClose(reason);
      return all.length;
    },
    blockPublishers() {
      alarms.setLimits({ memHighWatermark: 0 });
    },
    unblockPublishers() {
      alarms.setLimits({ memHighWatermark });
    },
    close: () => running.close(),
  };
}
