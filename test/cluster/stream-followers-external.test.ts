// SASL EXTERNAL through a follower's stream TLS port (docs/STREAMS.md, "Followers serve the
// stream port"): the follower verifies the client's certificate and vouches for its login to the
// leader with the cluster's secret, so the client logs in as the user its certificate names, as
// on the leader's own TLS port; a login claiming to be vouched for without the secret's proof is
// refused by the leader.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { connect, type Client } from "rabbitmq-stream-js-client";
import { FORWARDED_EXTERNAL, vouchForCertificate } from "../../src/auth/forwarded-certificate.js";
import { FrameWriter } from "../../src/stream/wire.js";
import { suiteCluster, type NodeInfo, type TestCluster } from "./cluster-fixture.js";
import { streamPortsOf } from "./stream-traffic.js";
import { RawStreamClient } from "../stream/raw-stream-client.js";
import { eventually, withTimeout } from "../helpers/wait.js";
import { makeTestCa } from "../helpers/test-ca.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const ca = makeTestCa();
/** The user makeTestCa's client certificate names (its distinguished name). */
const CERT_USER = "CN=client";
const STEP_MS = 20_000;
const step = <T>(what: string, p: Promise<T>): Promise<T> => withTimeout(p, STEP_MS, what);

const streamPorts = (cluster: TestCluster, n: NodeInfo): Promise<{ port: number; tlsPort: number }> => step(`${n.name}'s stream ports`, streamPortsOf(cluster, n));

async function api(n: NodeInfo, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`http://127.0.0.1:${n.httpPort}${path}`, {
    method,
    headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

function externalClient(port: number): Promise<Client> {
  const ssl = { ca: readFileSync(ca.caCert, "utf8"), cert: readFileSync(ca.clientCert, "utf8"), key: readFileSync(ca.clientKey, "utf8") };
  return step(`an EXTERNAL client of port ${port}`, connect({ hostname: "127.0.0.1", port, username: "", password: "", vhost: "/", heartbeat: 0, mechanism: "EXTERNAL", ssl }, silent));
}

/** A raw SaslAuthenticate with `mechanism` and `data` on `port`; the response code. */
async function rawLogin(port: number, mechanism: string, data: Buffer): Promise<number> {
  const raw = await RawStreamClient.open(port);
  try {
    raw.send(new FrameWriter(0x11).u32(1).map([]).frame());
    await raw.next(0x8011);
    raw.send(new FrameWriter(0x12).u32(2).frame());
    await raw.next(0x8012);
    raw.send(new FrameWriter(0x13).u32(3).str(mechanism).bytes(data).frame());
    const f = await raw.next(0x8013);
    f.body.u32();
    return f.body.u16();
  } finally {
    raw.close();
  }
}

describe("SASL EXTERNAL through a follower's stream TLS port", { timeout: 90_000 }, () => {
  const { cluster, pass } = suiteCluster(2, ["--stream-port", "0", "--stream-tls-port", "0", "--tls-cert", ca.serverCert, "--tls-key", ca.serverKey, "--tls-ca", ca.caCert, "--tls-verify-peer", "true", "--amqps-port", "0"]);
  after(() => rmSync(ca.dir, { recursive: true, force: true }));

  it("logs a follower's TLS client in as its certificate's user, vouched for to the leader; a proof without the secret is refused", async () => {
    const leader = await cluster.waitForLeader();
    const follower = cluster.nodes.find((n) => n !== leader)!;
    assert.ok((await api(leader, "PUT", `/api/users/${encodeURIComponent(CERT_USER)}`, { password_hash: "", tags: "" })).ok, "the certificate's user");
    assert.ok((await api(leader, "PUT", `/api/permissions/%2F/${encodeURIComponent(CERT_USER)}`, { configure: ".*", write: ".*", read: ".*" })).ok, "its permissions");

    const viaFollower = await externalClient((await streamPorts(cluster, follower)).tlsPort);
    await step("createStream through the follower", viaFollower.createStream({ stream: "by-certificate" }));
    // The leader holds the client's forwarded connection, logged in as the certificate's user.
    await eventually(async () => {
      const conns = (await (await api(leader, "GET", "/api/connections")).json()) as { user: string; protocol: string }[];
      return conns.some((c) => c.user === CERT_USER);
    }, 10_000, "the leader lists the certificate user's connection");
    await step("closing the follower's client", viaFollower.close());

    // Someone on the leader's plain port who claims a follower vouched, without the cluster's secret.
    const leaderPlain = (await streamPorts(cluster, leader)).port;
    const forged = vouchForCertificate(Buffer.alloc(32, 7), CERT_USER, true);
    assert.equal(await rawLogin(leaderPlain, FORWARDED_EXTERNAL, forged), 0x08, "AUTHENTICATION_FAILURE");
    // EXTERNAL itself on a plain port (no certificate) is not a mechanism there.
    assert.equal(await rawLogin(leaderPlain, "EXTERNAL", Buffer.alloc(0)), 0x07, "SASL_MECHANISM_NOT_SUPPORTED");
    pass();
  });
});
