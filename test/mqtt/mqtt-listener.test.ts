// The MQTT listeners' configuration (flags, environment, rabbitmq.conf with RabbitMQ's keys) and
// their side-listener behaviour: a port that cannot be bound is logged and the broker runs on.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type AddressInfo } from "node:net";
import { loadConfig } from "../../src/config/load-config.js";
import { readRabbitConf } from "../../src/config/rabbitmq-conf.js";
import { createLogger } from "../../src/logging/logger.js";
import { readFileSync } from "node:fs";
import { startTestBroker } from "../helpers/broker.js";
import { makeTestCa } from "../helpers/test-ca.js";
import { connackCode, connectMqtt, waitUntil } from "../helpers/mqtt-client.js";

describe("MQTT listener configuration", () => {
  it("defaults to RabbitMQ's ports 1883 and 15675, anonymous logins off; flags and environment change them", () => {
    const d = loadConfig([], {});
    assert.equal(d.mqttPort, 1883);
    assert.equal(d.webMqttPort, 15675);
    assert.equal(d.mqttVhost, "/");
    assert.equal(d.mqttExchange, "amq.topic");
    assert.equal(d.mqttAllowAnonymous, false);
    assert.equal(d.mqttPrefetch, 10);
    assert.equal(d.mqttsPort, 8883);
    assert.equal(d.mqttTopicAliasMaximum, 16, "RabbitMQ's mqtt.topic_alias_maximum");
    assert.equal(d.mqttSslCertLogin, false);
    assert.equal(d.webMqttsPort, null, "secure WebSocket is off unless configured, as RabbitMQ's");
    const c = loadConfig(["--mqtt-port", "0", "--web-mqtt-port", "off", "--mqtt-vhost", "iot"], { CONEY_MQTT_ALLOW_ANONYMOUS: "true" });
    assert.equal(c.mqttPort, 0);
    assert.equal(c.webMqttPort, null);
    assert.equal(c.mqttVhost, "iot");
    assert.equal(c.mqttAllowAnonymous, true);
  });

  it("reads RabbitMQ's mqtt.* and web_mqtt.* keys from rabbitmq.conf", () => {
    const conf = readRabbitConf(
      ["mqtt.listeners.tcp.default = 1884", "mqtt.listeners.ssl.default = 8884", "web_mqtt.tcp.port = 15676", "mqtt.vhost = devices", "mqtt.exchange = mqtt.topic", "mqtt.allow_anonymous = true", "mqtt.default_user = dev", "mqtt.default_pass = secret", "mqtt.prefetch = 20", "mqtt.topic_alias_maximum = 8", "mqtt.ssl_cert_login = true", "ssl_cert_login_from = common_name", "web_mqtt.ssl.port = 15677"].join("\n"),
      { loopbackUsers: ["guest"] },
    );
    assert.deepEqual(conf.unsupported, []);
    assert.deepEqual(conf.settings, { mqttPort: 1884, mqttsPort: 8884, webMqttPort: 15676, mqttVhost: "devices", mqttExchange: "mqtt.topic", mqttAllowAnonymous: true, mqttDefaultUser: "dev", mqttDefaultPass: "secret", mqttPrefetch: 20, mqttTopicAliasMaximum: 8, mqttSslCertLogin: true, sslCertLoginFrom: "common_name", webMqttsPort: 15677 });
  });
});

describe("MQTT listener start", () => {
  it("a port that is taken is logged and retried, the broker serving on; the listener binds once the port is free", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const taken = (blocker.address() as AddressInfo).port;
    const errors: string[] = [];
    const logger = createLogger("error", (line) => void errors.push(line));
    const listenerRetry = { firstDelayMs: 50, maxDelayMs: 100, logEveryMs: 60_000 };
    const broker = await startTestBroker({ mqttPort: taken, webMqttPort: 0, logger, listenerRetry });
    try {
      assert.equal(broker.mqttPort, null);
      assert.ok(broker.webMqttPort !== null, "the other MQTT listener still starts");
      assert.ok(errors.some((e) => e.includes("cannot listen") && e.includes('"protocol":"mqtt"')), errors.join("; "));
      const status = (): { up: boolean } | undefined => broker.listeners().find((l) => l.protocol === "mqtt");
      assert.equal(status()?.up, false);
      // The WebSocket listener too (ws re-emits the HTTP server's error: it must not crash the node).
      const second = await startTestBroker({ mqttPort: 0, webMqttPort: broker.webMqttPort, logger, listenerRetry });
      assert.equal(second.webMqttPort, null);
      assert.ok(second.mqttPort !== null);
      assert.ok(errors.some((e) => e.includes("cannot listen") && e.includes('"protocol":"http/web-mqtt"')), errors.join("; "));
      await second.close();
      const res = await fetch(`${broker.httpUrl}/api/overview`, { headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` } });
      assert.equal(res.status, 200);
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
      await waitUntil(() => status()?.up === true);
      const c = await connectMqtt(`mqtt://127.0.0.1:${taken}`, { clientId: "after-retry" });
      await c.client.endAsync();
    } finally {
      await broker.close();
      blocker.close();
    }
  });

  it("anonymous logins, when allowed, use the MQTT default user", async () => {
    const broker = await startTestBroker({ mqttPort: 0, mqttAllowAnonymous: true, mqttDefaultUser: "guest", mqttDefaultPass: "guest" });
    try {
      const url = `mqtt://127.0.0.1:${broker.mqttPort}`;
      const c = await connectMqtt(url, { clientId: "anon", username: undefined, password: undefined });
      assert.equal(broker.broker.connections.list().find((x) => x.info().clientProperties["client_id"] === "anon")?.user, "guest");
      await c.client.endAsync();
      assert.equal(await connackCode(url, { protocolVersion: 4, username: "guest", password: "wrong" }), 4, "given credentials are still checked");
    } finally {
      await broker.close();
    }
  });
});

describe("MQTT over TLS", () => {
  it("serves MQTTS with the node's certificate when it has one", async () => {
    const ca = makeTestCa();
    const broker = await startTestBroker({ mqttsPort: 0, tlsCert: ca.serverCert, tlsKey: ca.serverKey, tlsCa: ca.caCert, amqpsPort: 0 });
    try {
      assert.ok(broker.mqttsPort !== null);
      const c = await connectMqtt(`mqtts://127.0.0.1:${broker.mqttsPort}`, { clientId: "secure", ca: readFileSync(ca.caCert) });
      await c.client.subscribeAsync("tls/t", { qos: 1 });
      await c.client.publishAsync("tls/t", "over tls", { qos: 1 });
      const [r] = await c.waitFor(1);
      assert.equal(r!.payload.toString(), "over tls");
      const record = broker.broker.connections.list().find((x) => x.info().clientProperties["client_id"] === "secure")!.info();
      assert.equal(record.ssl, true);
      assert.equal(record.protocol, "MQTT 3.1.1");
      await c.client.endAsync();
    } finally {
      await broker.close();
    }
  });
});

describe("MQTT over secure WebSocket", () => {
  it("serves wss at /ws with the node's certificate when web_mqtt.ssl.port is set", async () => {
    const ca = makeTestCa();
    const broker = await startTestBroker({ webMqttsPort: 0, tlsCert: ca.serverCert, tlsKey: ca.serverKey, tlsCa: ca.caCert, amqpsPort: 0 });
    try {
      assert.ok(broker.webMqttsPort !== null);
      const c = await connectMqtt(`wss://127.0.0.1:${broker.webMqttsPort}/ws`, { clientId: "secure-ws", protocolVersion: 5, ca: readFileSync(ca.caCert) });
      await c.client.subscribeAsync("wss/t", { qos: 1 });
      await c.client.publishAsync("wss/t", "over wss", { qos: 1 });
      const [r] = await c.waitFor(1);
      assert.equal(r!.payload.toString(), "over wss");
      const record = broker.broker.connections.list().find((x) => x.info().clientProperties["client_id"] === "secure-ws")!.info();
      assert.equal(record.ssl, true);
      assert.equal(record.protocol, "Web MQTT 5-0");
      assert.ok(broker.listeners().some((l) => l.protocol === "https/web-mqtt" && l.up));
      await c.client.endAsync();
    } finally {
      await broker.close();
    }
  });
});
