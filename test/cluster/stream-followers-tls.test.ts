// Followers serve the stream TLS port too (docs/STREAMS.md, "Followers serve the stream port"): a
// client on a follower's TLS listener is told the replicas' TLS ports in Metadata and the
// follower's own TLS port in Open, and its consumer on a replica reads every message published on
// the leader, in order, over TLS.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { after } from "node:test";
import { connect, Offset, type Client } from "rabbitmq-stream-js-client";
import type { Message } from "rabbitmq-stream-js-client/dist/publisher.js";
import { suiteCluster, type NodeInfo, type TestCluster } from "./cluster-fixture.js";
import { streamPortsOf } from "./stream-traffic.js";
import { eventually, withTimeout } from "../helpers/wait.js";
import { makeTestCa } from "../helpers/test-ca.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const ca = makeTestCa();

/**
 * Every client step is bounded (STEP_MS), so a step that never answers fails by name, with the
 * nodes' logs (suiteCluster prints them), instead of holding the file until the runner's timeout.
 */
const STEP_MS = 20_000;
const step = <T>(what: string, p: Promise<T>): Promise<T> => withTimeout(p, STEP_MS, what);

const ports = (cluster: TestCluster, n: NodeInfo): Promise<{ port: number; tlsPort: number }> => step(`${n.name}'s stream ports`, streamPortsOf(cluster, n));

function tlsClient(port: number): Promise<Client> {
  return step(`a TLS client connected to port ${port}`, connect({ hostname: "127.0.0.1", port, username: "guest", password: "guest", vhost: "/", heartbeat: 0, ssl: { ca: readFileSync(ca.caCert).toString() } }, silent));
}

describe("followers serve the stream TLS port", { timeout: 90_000 }, () => {
  const { cluster, pass } = suiteCluster(3, ["--stream-port", "0", "--stream-tls-port", "0", "--tls-cert", ca.serverCert, "--tls-key", ca.serverKey, "--tls-ca", ca.caCert, "--amqps-port", "0"]);
  after(() => rmSync(ca.dir, { recursive: true, force: true }));

  it("tells TLS clients the TLS ports, and serves a replica's consumer over TLS", async () => {
    await cluster.waitForInSync(3);
    const leader = await cluster.waitForLeader();
    const followers = cluster.nodes.filter((n) => n !== leader);
    const onLeader = await tlsClient((await ports(cluster, leader)).tlsPort);
    await step("createStream on the leader", onLeader.createStream({ stream: "secure" }));
    const viaFollower = await tlsClient((await ports(cluster, followers[0]!)).tlsPort);
    assert.equal(viaFollower.getConnectionInfo().port, (await ports(cluster, followers[0]!)).tlsPort, "the follower advertises its own TLS port");
    const [meta] = await step("Metadata via the follower", viaFollower.queryMetadata({ streams: ["secure"] }));
    assert.equal(meta!.leader!.port, (await ports(cluster, leader)).tlsPort);
    assert.deepEqual(meta!.replicas!.map((r) => r.port).sort(), (await Promise.all(followers.map(async (f) => (await ports(cluster, f)).tlsPort))).sort());
    // The leader's own TLS listener answers the same.
    const [direct] = await step("Metadata via the leader", onLeader.queryMetadata({ streams: ["secure"] }));
    assert.deepEqual([direct!.leader!.port, ...direct!.replicas!.map((r) => r.port).sort()], [meta!.leader!.port, ...meta!.replicas!.map((r) => r.port).sort()]);
    const got: Message[] = [];
    await step("a consumer on the follower", viaFollower.declareConsumer({ stream: "secure", offset: Offset.first() }, (m) => void got.push(m)));
    const publisher = await step("a publisher on the leader", onLeader.declarePublisher({ stream: "secure" }));
    await step("500 sends and a flush", (async () => {
      for (let i = 0; i < 500; i++) await publisher.send(Buffer.from(`s${i}`));
      await publisher.flush();
    })());
    await eventually(() => got.length >= 500, 20_000, "500 messages over TLS on a replica");
    assert.deepEqual(got.map((m) => `${Number(m.offset)}:${m.content.toString()}`), Array.from({ length: 500 }, (_, i) => `${i}:s${i}`));
    await step("closing the follower's client", viaFollower.close());
    await step("closing the leader's client", onLeader.close());
    pass();
  });
});
