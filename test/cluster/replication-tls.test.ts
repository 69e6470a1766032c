// Replication over TLS (--cluster-tls): a cluster forms and syncs with the leader presenting the
// node certificate; the replication port then speaks only TLS; a follower that cannot verify the
// leader's certificate refuses it before anything is sent or written.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { FrameSplitter, FrameType, nameHead, sendFrame } from "../../src/cluster/replication-frames.js";
import { newNonce } from "../../src/cluster/replication-auth.js";
import { ReplicationFollower } from "../../src/cluster/replication-follower.js";
import { replicationTransport } from "../../src/cluster/replication-transport.js";
import { loadConfig } from "../../src/config/load-config.js";
import { createLogger } from "../../src/logging/logger.js";
import { makeTestCa, type TestCa } from "../helpers/test-ca.js";
import { TestCluster } from "./cluster-fixture.js";

describe("replication over TLS", { timeout: 100_000 }, () => {
  const ca: TestCa = makeTestCa();
  const other: TestCa = makeTestCa();
  const cluster = new TestCluster(3, 3, ["--cluster-tls", "true", "--tls-cert", ca.serverCert, "--tls-key", ca.serverKey, "--tls-ca", ca.caCert, "--amqps-port", "0"]);
  let port = 0;
  let secret = Buffer.alloc(0);
  let passed = 0;
  before(async () => {
    await cluster.start();
    await cluster.waitForInSync(3);
    port = await cluster.replicationPort(await cluster.waitForLeader());
    secret = Buffer.from((await cluster.etcdKey("secret")) ?? "", "base64");
  });
  after(async () => {
    if (passed < 3) console.error(cluster.logs());
    await cluster.close();
    rmSync(ca.dir, { recursive: true, force: true });
    rmSync(other.dir, { recursive: true, force: true });
  });

  it("forms, syncs every follower and confirms through them", async () => {
    const leader = await cluster.waitForLeader();
    const follower = cluster.nodes.find((n) => n !== leader)!;
    const conn = await amqp.connect(cluster.url(follower));
    try {
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue("over-tls", { durable: true });
      for (let i = 0; i < 100; i++) ch.sendToQueue("over-tls", Buffer.from(`m${i}`), { persistent: true });
      await ch.waitForConfirms();
    } finally {
      await conn.close();
    }
    const nodes = await cluster.waitForInSync(3);
    assert.equal(nodes.filter((n) => n.in_sync).length, 3);
    assert.match(leader.log, /"clusterTls":true/);
    passed++;
  });

  it("speaks only TLS on the replication port", async () => {
    const frames: FrameType[] = [];
    const socket = connect({ host: "127.0.0.1", port }, () => sendFrame(socket, FrameType.Hello, nameHead("plain@h", newNonce())));
    const splitter = new FrameSplitter((type) => frames.push(type));
    socket.on("data", (d: Buffer) => {
      try {
        splitter.push(d);
      } catch {
        // a TLS alert is not a frame
      }
    });
    socket.on("error", () => undefined);
    await new Promise<void>((resolve) => socket.on("close", () => resolve()));
    assert.deepEqual(frames, [], "no challenge over plain TCP");
    passed++;
  });

  it("has a follower refuse a leader whose certificate its CA did not sign, writing nothing", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-follower-"));
    try {
      const transport = replicationTransport({ clusterTls: true, tlsCert: other.serverCert, tlsKey: other.serverKey, tlsCa: other.caCert });
      const f = await new Promise<ReplicationFollower>((resolve) => {
        new ReplicationFollower({ leader: "leader", host: "127.0.0.1", port }, "stranger@h", secret, transport, dataDir, createLogger("silent"), resolve);
      });
      assert.ok(f.refused);
      assert.ok(!f.synced);
      assert.ok(!existsSync(join(dataDir, "definitions.json")));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    passed++;
  });

  it("will not start without a certificate to present", () => {
    assert.throws(() => loadConfig(["--cluster-tls", "true"], {}), /--cluster-tls: needs --tls-cert and --tls-key/);
  });
});
