// The stream listeners' configuration: RabbitMQ's defaults (5552, TLS 5551), the flags and
// rabbitmq.conf keys, the advertised host and port told in Open and Metadata, and the stream
// protocol over TLS with the node's certificate, driven by rabbitmq-stream-js-client.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect, Offset } from "rabbitmq-stream-js-client";
import { loadConfig } from "../../src/config/load-config.js";
import { makeTestCa } from "../helpers/test-ca.js";
import { collector, withTimeout } from "../helpers/wait.js";
import { startStreamBroker, streamClient } from "./stream-helpers.js";
import { RawStreamClient } from "./raw-stream-client.js";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

describe("stream listener configuration", () => {
  it("defaults to RabbitMQ's ports; flags and rabbitmq.conf change them", () => {
    const d = loadConfig([], {});
    assert.equal(d.streamPort, 5552);
    assert.equal(d.streamTlsPort, 5551);
    assert.equal(d.streamAdvertisedHost, null);
    const f = loadConfig(["--stream-port", "6552", "--stream-tls-port", "off", "--stream-advertised-host", "streams.example", "--stream-advertised-port", "7552"], {});
    assert.equal(f.streamPort, 6552);
    assert.equal(f.streamTlsPort, null);
    assert.equal(f.streamAdvertisedHost, "streams.example");
    assert.equal(f.streamAdvertisedPort, 7552);
    const ca = makeTestCa();
    const conf = join(ca.dir, "rabbitmq.conf");
    writeFileSync(conf, "stream.listeners.tcp.default = 5562\nstream.listeners.ssl.default = 5561\nstream.advertised_host = rabbit.local\nstream.advertised_port = 5999\n");
    const c = loadConfig(["--config", conf], {});
    assert.equal(c.streamPort, 5562);
    assert.equal(c.streamTlsPort, 5561);
    assert.equal(c.streamAdvertisedHost, "rabbit.local");
    assert.equal(c.streamAdvertisedPort, 5999);
  });

  it("tells clients the advertised host and port in Metadata", async () => {
    const b = await startStreamBroker({ streamAdvertisedHost: "streams.example", streamAdvertisedPort: 7552 });
    try {
      const client = await streamClient(b);
      await client.createStream({ stream: "adv" });
      const [meta] = await client.queryMetadata({ streams: ["adv"] });
      assert.deepEqual({ host: meta!.leader?.host, port: meta!.leader?.port }, { host: "streams.example", port: 7552 });
      await client.close();
    } finally {
      await b.close();
    }
  });

  it("sends heartbeats at the interval Tune agreed and closes a peer silent for two of them", async () => {
    const b = await startStreamBroker();
    try {
      const c = await RawStreamClient.login(b.streamPort, "guest", "guest", "/", 1);
      await c.next(0x17, 5000);
      // The client sends nothing from here on: after two silent seconds the broker gives up.
      await c.whenClosed(10_000);
    } finally {
      await b.close();
    }
  });

  it("serves the stream protocol over TLS with the node's certificate", async () => {
    const ca = makeTestCa();
    const b = await startStreamBroker({ streamPort: null, streamTlsPort: 0, tlsCert: ca.serverCert, tlsKey: ca.serverKey, tlsCa: ca.caCert, amqpsPort: 0 });
    try {
      assert.equal(b.streamPort, null);
      assert.ok(b.streamTlsPort !== null);
      const client = await connect({ hostname: "127.0.0.1", port: b.streamTlsPort, username: "guest", password: "guest", vhost: "/", ssl: { ca: readFileSync(ca.caCert).toString() } }, quiet);
      await client.createStream({ stream: "secure" });
      // The advertised port of a TLS-only node is its TLS listener's.
      const publisher = await client.declarePublisher({ stream: "secure" });
      await publisher.send(Buffer.from("over tls"));
      await publisher.flush();
      const got = collector<string>(1);
      await client.declareConsumer({ stream: "secure", offset: Offset.first() }, (m) => got.push(m.content.toString()));
      assert.deepEqual(await withTimeout(got.done, 5000, "TLS delivery"), ["over tls"]);
      const record = b.broker.connections.list().map((c) => c.info()).find((i) => i.protocol === "stream")!;
      assert.equal(record.ssl, true);
      await client.close();
    } finally {
      await b.close();
    }
  });
});
