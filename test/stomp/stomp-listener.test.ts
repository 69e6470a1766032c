// The STOMP listeners' configuration (flags, environment, rabbitmq.conf with RabbitMQ's keys),
// their side-listener behaviour, STOMP over TLS with the node's certificate, the default user
// and implicit connect.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type AddressInfo } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { readFileSync } from "node:fs";
import { loadConfig } from "../../src/config/load-config.js";
import { readRabbitConf } from "../../src/config/rabbitmq-conf.js";
import { createLogger } from "../../src/logging/logger.js";
import { startTestBroker } from "../helpers/broker.js";
import { makeTestCa } from "../helpers/test-ca.js";
import { StompWire } from "../helpers/stomp-wire.js";
import { eventually, withTimeout } from "../helpers/wait.js";

describe("STOMP listener configuration", () => {
  it("defaults to RabbitMQ's ports 61613, 61614 and 15674; flags and environment change them", () => {
    const d = loadConfig([], {});
    assert.equal(d.stompPort, 61613);
    assert.equal(d.stompsPort, 61614);
    assert.equal(d.webStompPort, 15674);
    assert.equal(d.stompDefaultUser, null);
    assert.equal(d.stompImplicitConnect, false);
    const c = loadConfig(["--stomp-port", "0", "--web-stomp-port", "off"], { CONEY_STOMPS_PORT: "off" });
    assert.equal(c.stompPort, 0);
    assert.equal(c.webStompPort, null);
    assert.equal(c.stompsPort, null);
  });

  it("reads RabbitMQ's stomp.* and web_stomp.* keys from rabbitmq.conf", () => {
    const conf = readRabbitConf(
      ["stomp.listeners.tcp.default = 61620", "stomp.listeners.ssl.default = 61621", "web_stomp.tcp.port = 15680", "stomp.default_user = guest", "stomp.default_pass = secret", "stomp.implicit_connect = true", "stomp.default_vhost = v", "stomp.ssl_cert_login = true"].join("\n"),
      { loopbackUsers: ["guest"] },
    );
    assert.deepEqual(conf.unsupported, []);
    assert.deepEqual(conf.settings, { stompPort: 61620, stompsPort: 61621, webStompPort: 15680, stompDefaultUser: "guest", stompDefaultPass: "secret", stompImplicitConnect: true, stompDefaultVhost: "v", stompSslCertLogin: true });
  });
});

describe("STOMP listener start", () => {
  it("a port that is taken is logged and retried while the broker serves on", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const taken = (blocker.address() as AddressInfo).port;
    const errors: string[] = [];
    const logger = createLogger("error", (line) => void errors.push(line));
    const listenerRetry = { firstDelayMs: 50, maxDelayMs: 100, logEveryMs: 60_000 };
    const broker = await startTestBroker({ stompPort: taken, webStompPort: 0, logger, listenerRetry });
    try {
      assert.equal(broker.stompPort, null);
      assert.ok(broker.webStompPort !== null);
      assert.ok(errors.some((e) => e.includes("cannot listen") && e.includes('"protocol":"stomp"')), errors.join("; "));
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
      await eventually(() => broker.listeners().find((l) => l.protocol === "stomp")?.up === true, 5000, "the retried listener");
      (await StompWire.login(taken)).close();
    } finally {
      await broker.close();
    }
  });

  it("with stomp.default_user, CONNECT without credentials and (implicit_connect) a first SEND log in", async () => {
    const broker = await startTestBroker({ stompPort: 0, stompDefaultUser: "guest", stompDefaultPass: "guest", stompImplicitConnect: true });
    try {
      const w = await StompWire.open(broker.stompPort!);
      w.send("CONNECT", { "accept-version": "1.2" });
      assert.equal((await w.next()).command, "CONNECTED");
      w.close();
      const implicit = await StompWire.open(broker.stompPort!);
      implicit.send("SEND", { destination: "/queue/implicit", receipt: "r" }, "x");
      assert.equal((await implicit.nextOf("RECEIPT")).headers["receipt-id"], "r");
      assert.equal(broker.broker.vhosts.get("/")!.queues.get("implicit")!.messageCount, 1);
      implicit.close();
    } finally {
      await broker.close();
    }
  });
});

describe("STOMP over TLS", () => {
  it("serves STOMP over TLS with the node's certificate", async () => {
    const ca = makeTestCa();
    const broker = await startTestBroker({ stompsPort: 0, tlsCert: ca.serverCert, tlsKey: ca.serverKey, tlsCa: ca.caCert, amqpsPort: 0 });
    try {
      assert.ok(broker.stompsPort !== null);
      const socket = tlsConnect({ host: "127.0.0.1", port: broker.stompsPort!, ca: readFileSync(ca.caCert), servername: "localhost" });
      let text = "";
      socket.on("data", (d: Buffer) => (text += d.toString()));
      await withTimeout(new Promise<void>((resolve) => socket.once("secureConnect", () => resolve())), 5000, "the TLS handshake");
      socket.write("CONNECT\naccept-version:1.2\nlogin:guest\npasscode:guest\n\n\u0000");
      await eventually(() => text.includes("CONNECTED"), 5000, "CONNECTED over TLS");
      const record = broker.broker.connections.list()[0]!.info();
      assert.equal(record.ssl, true);
      assert.equal(record.protocol, "STOMP 1.2");
      socket.destroy();
    } finally {
      await broker.close();
    }
  });

  it("with stomp.ssl_cert_login, a client certificate without login and passcode logs in as its name", async () => {
    const ca = makeTestCa();
    const broker = await startTestBroker({ stompsPort: 0, amqpsPort: 0, tlsCert: ca.serverCert, tlsKey: ca.serverKey, tlsCa: ca.caCert, tlsVerifyPeer: true, stompSslCertLogin: true, sslCertLoginFrom: "common_name" });
    try {
      broker.broker.putUser("client", { password: "unused", tags: [] });
      broker.broker.setPermission("client", "/", { configure: ".*", write: ".*", read: ".*" });
      const socket = tlsConnect({ host: "127.0.0.1", port: broker.stompsPort!, ca: readFileSync(ca.caCert), cert: readFileSync(ca.clientCert), key: readFileSync(ca.clientKey), servername: "localhost" });
      let text = "";
      socket.on("data", (d: Buffer) => (text += d.toString()));
      await withTimeout(new Promise<void>((resolve) => socket.once("secureConnect", () => resolve())), 5000, "the TLS handshake");
      socket.write("CONNECT\naccept-version:1.2\n\n\u0000");
      await eventually(() => text.includes("CONNECTED"), 5000, "CONNECTED by certificate");
      assert.equal(broker.broker.connections.list()[0]!.info().user, "client");
      socket.destroy();
    } finally {
      await broker.close();
    }
  });
});
