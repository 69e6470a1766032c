// Followers forward the TLS ports too, without terminating TLS (docs/CLUSTERING.md, "Clients"):
// MQTTS and Web MQTT over TLS (mqtt.js), STOMP over TLS (raw frames on a TLS socket) and AMQP 1.0 over AMQPS (rhea)
// connected to a follower complete their handshake with the leader's certificate, verified
// against the test CA, and publish and consume through the leader.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { connect as tlsConnect } from "node:tls";
import { connectAsync } from "mqtt";
import { suiteCluster } from "./cluster-fixture.js";
import { makeTestCa, type TestCa } from "../helpers/test-ca.js";
import { withTimeout } from "../helpers/wait.js";
import { bodyOf, close as closeAmqp1, connect as connectAmqp1, data, openSender, receive, sendAll } from "../helpers/rhea-client.js";
import type { ClientPorts } from "../../src/cluster/client-ports.js";

const GUEST = { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` };

/** Sends STOMP frames over TLS and resolves with every byte the broker sent until `until` is found in them. */
function stompOverTls(port: number, ca: Buffer, frames: string, until: string): Promise<string> {
  return withTimeout(
    new Promise<string>((resolve, reject) => {
      const s = tlsConnect({ host: "127.0.0.1", port, ca, servername: "localhost" }, () => s.write(frames));
      let got = "";
      s.on("data", (d: Buffer) => {
        got += d.toString("latin1");
        if (got.includes(until)) {
          s.destroy();
          resolve(got);
        }
      });
      s.on("error", reject);
      s.on("close", () => reject(new Error(`closed; got ${JSON.stringify(got)}`)));
    }),
    10_000,
    `STOMP over TLS to send ${until}`,
  );
}

describe("followers forward the TLS ports without terminating TLS", { timeout: 120_000 }, () => {
  const ca: TestCa = makeTestCa();
  const { cluster, pass } = suiteCluster(3, ["--tls-cert", ca.serverCert, "--tls-key", ca.serverKey, "--tls-ca", ca.caCert, "--stream-tls-port", "off"]);
  // Each node's TLS ports picked, not 0: the leader binds its front's ports again once elected, and
  // an ephemeral one may meanwhile be another test file's (this file once failed with EADDRINUSE).
  cluster.portFlags = ["--amqps-port", "--mqtts-port", "--web-mqtts-port", "--stomps-port"];
  after(() => rmSync(ca.dir, { recursive: true, force: true }));

  it("MQTTS, Web MQTT over TLS, STOMP over TLS and AMQP 1.0 over AMQPS through a follower", async () => {
    const leader = await cluster.waitForLeader();
    const follower = cluster.nodes.find((n) => n !== leader)!;
    const ports = (JSON.parse((await cluster.etcdKey(`members/${follower.name}`)) ?? "{}") as { ports: ClientPorts }).ports;
    const caPem = readFileSync(ca.caCert);

    for (const url of [`mqtts://127.0.0.1:${ports.mqtts}`, `wss://127.0.0.1:${ports.webMqtts}/ws`]) {
      const m = await connectAsync(url, { ca: caPem, servername: "localhost", clientId: "tls-front", username: "guest", password: "guest", protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000 });
      const got = new Promise<string>((resolve) => m.on("message", (_t, payload) => resolve(payload.toString())));
      await m.subscribeAsync("front/tls", { qos: 1 });
      await m.publishAsync("front/tls", `over ${url}`, { qos: 1 });
      assert.equal(await withTimeout(got, 10_000, `the message over ${url}`), `over ${url}`);
      await m.endAsync();
    }

    const connect = "CONNECT\naccept-version:1.2\nhost:/\nlogin:guest\npasscode:guest\n\n\0";
    const subscribe = "SUBSCRIBE\nid:s\ndestination:/queue/front-tls\n\n\0";
    const send = "SEND\ndestination:/queue/front-tls\n\nover stomps\0";
    const stomp = await stompOverTls(ports.stomps!, caPem, connect + subscribe + send, "over stomps");
    assert.match(stomp, /^CONNECTED\n/);
    assert.match(stomp, /MESSAGE\n[\s\S]*over stomps/);

    const put = await fetch(`http://127.0.0.1:${follower.httpPort}/api/queues/%2F/front-amqps`, { method: "PUT", headers: { ...GUEST, "content-type": "application/json" }, body: JSON.stringify({ durable: true }) });
    assert.equal(put.status, 201);
    const c = await connectAmqp1(ports.amqps!, { transport: "tls", ca: caPem, servername: "localhost" });
    const { messages } = receive(c, "/queues/front-amqps", 1, { autoaccept: true });
    const sender = await openSender(c, "/queues/front-amqps");
    assert.deepEqual((await sendAll(sender, [{ body: data("over amqps") }])).map((o) => o.outcome), ["accepted"]);
    assert.equal(bodyOf((await messages)[0]!.message).toString(), "over amqps");
    await closeAmqp1(c);
    pass();
  });
});
