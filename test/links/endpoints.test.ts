// The link layer's two endpoints behind one interface, between two real brokers: the local
// endpoint calls broker A's domain directly, the remote one speaks AMQP to broker B. Each
// declares, consumes with a prefetch, acks, and publishes with confirms; a remote endpoint whose
// broker closes says why; the link loop restarts a failed run after its back-off.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { AMQPClient } from "@cloudamqp/amqp-client";
import { startTestBroker } from "../helpers/broker.js";
import { useTwoBrokers } from "../helpers/broker-fixture.js";
import { eventually, withTimeout } from "../helpers/wait.js";
import { openEndpoint } from "../../src/links/open-endpoint.js";
import { UriList } from "../../src/links/open-endpoint.js";
import { LinkLoop } from "../../src/links/link-loop.js";
import type { Endpoint, LinkDelivery } from "../../src/links/endpoint.js";
import { ResourceAlarms } from "../../src/broker/index.js";
import { makeTestCa } from "../helpers/test-ca.js";

const confirmOf = (e: Endpoint, body: string, queue: string): Promise<boolean> =>
  new Promise((resolve) => e.publish("", queue, { deliveryMode: 2, headers: { n: 1 } }, Buffer.from(body), resolve));

async function exercise(e: Endpoint, queue: string): Promise<void> {
  assert.equal(await e.ensureQueue(queue), 0);
  for (let i = 0; i < 5; i++) assert.equal(await confirmOf(e, `m${i}`, queue), true);
  assert.equal(await e.ensureQueue(queue), 5, "ensureQueue reports the ready count of an existing queue");
  const got: LinkDelivery[] = [];
  await e.consume(queue, { prefetch: 2, noAck: false }, (d) => got.push(d));
  await eventually(() => got.length === 2, 5000, "two deliveries (prefetch 2)");
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(got.length, 2, "no more than the prefetch unacked");
  e.ack(got[1]!.tag, true);
  await eventually(() => got.length === 4, 5000, "two more after a multiple ack");
  e.ack(got[3]!.tag, true);
  await eventually(() => got.length === 5, 5000, "the last");
  e.ack(got[4]!.tag, false);
  assert.deepEqual(got.map((d) => Buffer.from(d.body as Buffer).toString()), ["m0", "m1", "m2", "m3", "m4"]);
  assert.equal(got[0]!.properties.deliveryMode, 2);
  assert.equal(got[0]!.properties.headers?.["n"], 1);
}

describe("link endpoints", () => {
  const two = useTwoBrokers();

  it("the local endpoint declares, publishes with confirms, consumes with a prefetch and acks", async () => {
    const e = await openEndpoint(two.a.broker, "amqp://", { name: "test local", confirms: true });
    assert.equal(e.local, true);
    await exercise(e, "local-q");
    await e.close();
    assert.equal(two.a.broker.vhost("/").queues.get("local-q")?.messageCount, 0);
  });

  it("the remote endpoint does the same over AMQP", async () => {
    const e = await openEndpoint(two.a.broker, two.b.amqpUrl, { name: "test remote", confirms: true });
    assert.equal(e.local, false);
    await exercise(e, "remote-q");
    await e.close();
    const conn = new AMQPClient(two.b.amqpUrl);
    await conn.connect();
    const ch = await conn.channel();
    assert.equal((await ch.queueDeclare("remote-q", { passive: true })).messageCount, 0);
    await conn.close();
  });

  it("closing an endpoint gives its unacked deliveries back", async () => {
    const e = await openEndpoint(two.a.broker, "amqp://", { name: "t", confirms: false });
    await e.ensureQueue("held");
    await confirmOf(e, "x", "held");
    const got: LinkDelivery[] = [];
    await e.consume("held", { prefetch: 10, noAck: false }, (d) => got.push(d));
    await eventually(() => got.length === 1);
    await e.close();
    assert.equal(two.a.broker.vhost("/").queues.get("held")?.messageCount, 1);
  });

  it("a remote endpoint whose connection is closed by the broker goes down with the reason", async () => {
    const e = await openEndpoint(two.a.broker, two.b.urlFor("guest", "guest"), { name: "to be closed", confirms: false });
    const reason = new Promise<string>((resolve) => (e.onDown = resolve));
    await eventually(() => two.b.broker.connections.list().some((c) => c.info().clientProperties["connection_name"] === "to be closed"), 5000, "the connection on B");
    for (const c of two.b.broker.connections.list()) if (c.info().clientProperties["connection_name"] === "to be closed") c.forceClose("closed by the test");
    assert.match(await withTimeout(reason, 5000, "onDown"), /closed by the test|CONNECTION_FORCED|closed/i);
  });

  it("the local endpoint holds its publishes while a memory alarm is on, and releases them in order when it clears", async () => {
    // A probe whose memory use is above the watermark until the test lifts the watermark.
    const alarms = new ResourceAlarms({ memHighWatermark: 0.1, diskFreeLimit: 0 }, null, { rss: () => 500, totalMemory: () => 1000, diskFree: () => 1e12 });
    assert.notEqual(alarms.reason, null);
    const e = await openEndpoint(two.a.broker, "amqp://", { name: "held", confirms: true, alarms });
    await e.ensureQueue("alarm-q");
    const confirmed: number[] = [];
    for (let i = 0; i < 3; i++) e.publish("", "alarm-q", {}, Buffer.from(String(i)), () => confirmed.push(i));
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(confirmed, [], "nothing confirmed while the alarm is on");
    assert.equal(two.a.broker.vhost("/").queues.get("alarm-q")?.messageCount, 0, "nothing published while the alarm is on");
    alarms.setLimits({ memHighWatermark: 0.9 });
    await eventually(() => confirmed.length === 3, 5000, "the held publishes confirmed");
    assert.deepEqual(confirmed, [0, 1, 2]);
    assert.equal(two.a.broker.vhost("/").queues.get("alarm-q")?.messageCount, 3);
    await e.close();
  });

  it("amqps:// with RabbitMQ's TLS query options: cacertfile + verify_peer checks the broker's certificate", async () => {
    const ca = makeTestCa();
    const tlsBroker = await startTestBroker({ tlsCert: ca.serverCert, tlsKey: ca.serverKey, tlsCa: ca.caCert, amqpsPort: 0 });
    try {
      const base = `amqps://guest:guest@localhost:${tlsBroker.amqpsPort}/%2f`;
      const verified = await openEndpoint(two.a.broker, `${base}?cacertfile=${encodeURIComponent(ca.caCert)}&verify=verify_peer&server_name_indication=localhost`, { name: "tls", confirms: true });
      await exercise(verified, "over-tls");
      await verified.close();
      // verify_peer without the CA: the broker's certificate is refused.
      await assert.rejects(openEndpoint(two.a.broker, `${base}?verify=verify_peer`, { name: "tls-unknown-ca", confirms: false }), /certificate/i);
      // verify_none (RabbitMQ 3.10's default): the connection is encrypted, the certificate not checked.
      const unverified = await openEndpoint(two.a.broker, base, { name: "tls-unverified", confirms: false });
      await unverified.close();
    } finally {
      await tlsBroker.close();
    }
    // A broker that asks for client certificates: certfile + keyfile present one.
    const mutual = await startTestBroker({ tlsCert: ca.serverCert, tlsKey: ca.serverKey, tlsCa: ca.caCert, tlsVerifyPeer: true, amqpsPort: 0 });
    try {
      const base = `amqps://guest:guest@localhost:${mutual.amqpsPort}/%2f?cacertfile=${encodeURIComponent(ca.caCert)}&verify=verify_peer`;
      const withCert = await openEndpoint(two.a.broker, `${base}&certfile=${encodeURIComponent(ca.clientCert)}&keyfile=${encodeURIComponent(ca.clientKey)}`, { name: "tls-client-cert", confirms: false });
      await withCert.close();
      await assert.rejects(openEndpoint(two.a.broker, base, { name: "tls-no-client-cert", confirms: false }));
    } finally {
      await mutual.close();
    }
  });

  it("a URI list tries each in turn; the loop retries a failed run after its delay", async () => {
    const list = new UriList(["amqp://guest:guest@127.0.0.1:1/", two.b.amqpUrl]);
    const { endpoint, uri } = await list.open(two.a.broker, { name: "list", confirms: false });
    assert.equal(uri, two.b.amqpUrl);
    await endpoint.close();
    let runs = 0;
    const loop = new LinkLoop(async (control) => {
      runs++;
      if (runs < 3) throw new Error(`attempt ${runs} failed`);
      control.up();
      return async () => {};
    }, { initialMs: 20, maxMs: 40, factor: 2 });
    const reasons: string[] = [];
    loop.onChange = (l) => {
      if (l.state === "down" && l.reason) reasons.push(l.reason);
    };
    loop.start();
    await eventually(() => loop.state === "running", 5000, "the third run");
    assert.deepEqual(reasons, ["attempt 1 failed", "attempt 2 failed"]);
    await loop.stop();
    assert.equal(loop.state, "stopped");
  });
});
