// AMQPS and HTTPS with a CA made by the test; client-certificate verification; certificate expiry check.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:https";
import { rmSync } from "node:fs";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { makeTestCa, type TestCa } from "../helpers/test-ca.js";

const GUEST = `Basic ${Buffer.from("guest:guest").toString("base64")}`;

function httpsGet(port: number, path: string, ca: Buffer): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, ca, headers: { authorization: GUEST } }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(body) as Record<string, unknown> }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("TLS listeners", () => {
  let ca: TestCa;
  let broker: TestBroker;
  before(async () => {
    ca = makeTestCa(3); // a server certificate that expires in 3 days
    broker = await startTestBroker({ tlsCert: ca.serverCert, tlsKey: ca.serverKey, tlsCa: ca.caCert, amqpsPort: 0, httpTls: true, mqttsPort: 0, webMqttsPort: 0 });
  });
  after(async () => {
    await broker.close();
    rmSync(ca.dir, { recursive: true, force: true });
  });

  it("serve AMQP over TLS next to plain AMQP, and the management API over HTTPS", async () => {
    assert.ok(broker.amqpsPort);
    const conn = await amqp.connect(`amqps://guest:guest@127.0.0.1:${broker.amqpsPort}/`, { ca: [ca.pem(ca.caCert)], servername: "localhost" });
    const ch = await conn.createChannel();
    await ch.assertQueue("over-tls");
    const https = await httpsGet(broker.httpPort!, "/api/queues/%2F/over-tls", ca.pem(ca.caCert));
    assert.equal(https.status, 200);
    const conns = await httpsGet(broker.httpPort!, "/api/connections", ca.pem(ca.caCert));
    const tlsConn = (conns.json as unknown as Array<Record<string, unknown>>)[0]!;
    assert.equal(tlsConn["ssl"], true);
    // What RabbitMQ's UI shows in a TLS connection's "SSL" section; no client certificate here.
    assert.match(tlsConn["ssl_protocol"] as string, /^tlsv1\.[23]$/);
    for (const k of ["ssl_key_exchange", "ssl_cipher", "ssl_hash"]) assert.ok((tlsConn[k] as string).length > 0, `${k}: ${String(tlsConn[k])}`);
    assert.deepEqual([tlsConn["peer_cert_issuer"], tlsConn["peer_cert_subject"], tlsConn["peer_cert_validity"]], ["", "", ""]);
    await conn.close();
    const plain = await amqp.connect(broker.amqpUrl);
    await plain.close();
  });

  it("report certificates that expire within the window: 503 listing the listeners, else 200; bad values 400", async () => {
    const ok = await httpsGet(broker.httpPort!, "/api/health/checks/certificate-expiration/1/days", ca.pem(ca.caCert));
    assert.deepEqual([ok.status, ok.json], [200, { status: "ok" }]);
    const soon = await httpsGet(broker.httpPort!, "/api/health/checks/certificate-expiration/1/weeks", ca.pem(ca.caCert));
    assert.equal(soon.status, 503);
    assert.equal(soon.json["status"], "failed");
    assert.equal(soon.json["reason"], "Certificates expiring");
    const expired = soon.json["expired"] as Array<{ protocol: string; port: number; certfile: string }>;
    // Every TLS listener of the node, each once (noteCertificate).
    assert.deepEqual(expired.map((e) => e.protocol).sort(), ["amqp/ssl", "https", "https/web-mqtt", "mqtt/ssl"]);
    assert.ok(expired.every((e) => e.certfile === ca.serverCert));
    const bare = await httpsGet(broker.httpPort!, "/api/health/checks/certificate-expiration", ca.pem(ca.caCert));
    assert.equal(bare.status, 503, "the spec's path without a window checks the next 4 weeks");
    assert.equal(bare.json["reason"], "Certificates expiring");
    assert.equal((await httpsGet(broker.httpPort!, "/api/health/checks/certificate-expiration/1/fortnights", ca.pem(ca.caCert))).status, 400);
    assert.equal((await httpsGet(broker.httpPort!, "/api/health/checks/certificate-expiration/-1/days", ca.pem(ca.caCert))).status, 400);
  });

  it("with verify-peer, refuse AMQPS clients without a certificate from the CA and accept those with one", async () => {
    const strict = await startTestBroker({ tlsCert: ca.serverCert, tlsKey: ca.serverKey, tlsCa: ca.caCert, tlsVerifyPeer: true, amqpsPort: 0, httpPort: null });
    try {
      const url = `amqps://guest:guest@127.0.0.1:${strict.amqpsPort}/`;
      await assert.rejects(amqp.connect(url, { ca: [ca.pem(ca.caCert)], servername: "localhost" }));
      const conn = await amqp.connect(url, { ca: [ca.pem(ca.caCert)], cert: ca.pem(ca.clientCert), key: ca.pem(ca.clientKey), servername: "localhost" });
      await conn.close();
    } finally {
      await strict.close();
    }
  });
});
