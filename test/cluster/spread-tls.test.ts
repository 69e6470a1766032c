// A spread cluster with `--cluster-tls true` (docs/CLUSTERING.md, "Encrypted links"): three real
// `node bin/coney.js` nodes on a real etcd, certificates made with openssl (test/helpers/test-ca.ts).
// The node links and every store's replication listener speak TLS only: a message published on
// node0 to a queue homed on node1 is consumed on node2 (two links), every store is in sync on all
// three nodes (replication over TLS), a plain TCP connection to a link port or a replication port
// gets no challenge, and a node whose CA did not sign the certificate refuses the link; a node
// killed -9 has its store adopted (the adopted broker's link listener is TLS too) and its queue
// confirms again through another node.
import { describe } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { connect } from "node:net";
import { eventually, withTimeout } from "../helpers/wait.js";
import { makeTestCa } from "../helpers/test-ca.js";
import { helloFrame } from "../../src/node-link/link-handshake.js";
import { FrameType, nameHead, sendFrame } from "../../src/cluster/replication-frames.js";
import { newNonce } from "../../src/cluster/replication-auth.js";
import { replicationTransport } from "../../src/cluster/replication-transport.js";
import { connectSpreadLink } from "../../src/cluster/spread-links.js";
import { freePort } from "./cluster-fixture.js";
import { spreadCluster } from "./spread-fixture.js";

/** What a plain TCP client that sends `first` reads back before the port closes it. */
async function plainAnswer(port: number, first: (socket: ReturnType<typeof connect>) => void): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const socket = connect({ host: "127.0.0.1", port }, () => first(socket));
  socket.on("data", (d: Buffer) => chunks.push(d));
  socket.on("error", () => undefined);
  await withTimeout(new Promise<void>((resolve) => socket.once("close", () => resolve())), 10_000, "the TLS port to close a plain connection");
  return Buffer.concat(chunks);
}

describe("a spread cluster over TLS (--cluster-tls)", { timeout: 90_000 }, () => {
  const ca = makeTestCa();
  const other = makeTestCa();
  const tls = ["--cluster-tls", "true", "--tls-cert", ca.serverCert, "--tls-key", ca.serverKey, "--tls-ca", ca.caCert, "--amqps-port", "0", "--mqtts-port", "off", "--stomps-port", "off", "--stream-tls-port", "off"];
  const sc = spreadCluster({ leaseTtl: 3, protocols: false, extraArgs: tls });
  const { cluster } = sc;
  sc.onClose(() => {
    rmSync(ca.dir, { recursive: true, force: true });
    rmSync(other.dir, { recursive: true, force: true });
  });

  /** A key of the spread cluster in etcd, parsed. */
  const key = async <T>(k: string): Promise<T> => JSON.parse((await cluster.etcdKey(`spread/${k}`)) ?? "null") as T;

  sc.it("carries a message published on node0 to a queue homed on node1 and consumes it on node2, every store in sync over TLS", async () => {
    for (const n of cluster.nodes) assert.match(n.log, /"msg":"spread cluster: node serving".*"clusterTls":true/, `${n.name} serves with TLS links`);
    const decl = await (await sc.connect(1)).createChannel();
    await decl.assertQueue("tls-q", { durable: true });
    await decl.close();
    await sc.seenEverywhere("tls-q", 200);
    const pub = await (await sc.connect(0)).createConfirmChannel();
    for (let i = 0; i < 20; i++) pub.sendToQueue("tls-q", Buffer.from(`m${i}`), { persistent: true });
    await pub.waitForConfirms();
    const sub = await (await sc.connect(2)).createChannel();
    const got: string[] = [];
    await withTimeout(
      new Promise<void>((resolve) => {
        void sub.consume("tls-q", (m) => {
          if (m === null) return;
          got.push(m.content.toString());
          sub.ack(m);
          if (got.length === 20) resolve();
        });
      }),
      15_000,
      "20 messages through node2",
    );
    assert.deepEqual(got, Array.from({ length: 20 }, (_, i) => `m${i}`), "in order, through two TLS links");
    const q = (await sc.api(0, "GET", "/api/queues/%2F/tls-q")).json as { node: string };
    assert.equal(q.node, sc.node(1).name, "homed on node1");
    // Each store's followers replicate over TLS from its writer's listener: all three in sync.
    for (const n of cluster.nodes) {
      await eventually(async () => (await key<{ nodes: string[] } | null>(`stores/${n.name}/insync`))?.nodes.length === 3, 20_000, `${n.name}'s store in sync on all three nodes`);
    }
  });

  sc.it("speaks only TLS on a node's link port and on its store's replication port", async () => {
    const member = await key<{ linkPort: number }>(`members/${sc.node(0).name}`);
    const owner = await key<{ replPort: number }>(`stores/${sc.node(0).name}/owner`);
    assert.ok(member.linkPort > 0 && owner.replPort > 0, "ports registered in etcd");
    const link = await plainAnswer(member.linkPort, (s) => s.write(helloFrame("plain@h").frame));
    // Nothing, or a TLS alert record (0x15): never the link's CHALLENGE.
    assert.ok(link.length === 0 || link[0] === 0x15, `a plain HELLO on the link port got ${link.length} bytes starting ${link.subarray(0, 5).toString("hex")}`);
    const repl = await plainAnswer(owner.replPort, (s) => sendFrame(s, FrameType.Hello, nameHead("plain@h", newNonce())));
    assert.ok(repl.length === 0 || repl[0] === 0x15, `a plain HELLO on the replication port got ${repl.length} bytes starting ${repl.subarray(0, 5).toString("hex")}`);
  });

  sc.it("refuses a link to a node whose certificate the connecting node's CA did not sign, before the cluster secret is used", async () => {
    const member = await key<{ linkPort: number }>(`members/${sc.node(0).name}`);
    const secret = Buffer.from((await cluster.etcdKey("secret")) ?? "", "base64");
    const stranger = replicationTransport({ clusterTls: true, tlsCert: other.serverCert, tlsKey: other.serverKey, tlsCa: other.caCert });
    await assert.rejects(connectSpreadLink(stranger, "127.0.0.1", member.linkPort, { secret, node: "stranger@h" }), /certificate/);
    // The same secret and the cluster's CA: the link comes up (the refusal above was the certificate's).
    const trusted = replicationTransport({ clusterTls: true, tlsCert: ca.serverCert, tlsKey: ca.serverKey, tlsCa: ca.caCert });
    const up = await connectSpreadLink(trusted, "127.0.0.1", member.linkPort, { secret, node: "visitor@test" });
    up.close();
  });

  sc.it("serves a killed node's queue from its adopter over a TLS link, with every confirmed message", async () => {
    const decl = await (await sc.connect(2)).createConfirmChannel();
    await decl.assertQueue("tls-adopt", { durable: true });
    for (let i = 0; i < 10; i++) decl.sendToQueue("tls-adopt", Buffer.from(`a${i}`), { persistent: true });
    await decl.waitForConfirms();
    await sc.seenEverywhere("tls-adopt", 200);
    await cluster.kill(sc.node(2));
    // Adopted once node2's lease (3 s) expired: a publish through node0 is confirmed again.
    const conn = await sc.connect(0);
    let confirmed = false;
    await eventually(async () => {
      const ch = await conn.createConfirmChannel();
      ch.on("error", () => undefined);
      confirmed = await withTimeout(new Promise<boolean>((resolve) => ch.sendToQueue("tls-adopt", Buffer.from("after"), { persistent: true }, (err) => resolve(err === null || err === undefined))), 2000, "a confirm").catch(() => false);
      await ch.close().catch(() => undefined);
      return confirmed;
    }, 30_000, "tls-adopt confirming through its adopter");
    const owner = await key<{ node: string }>(`stores/${sc.node(2).name}/owner`);
    assert.notEqual(owner.node, sc.node(2).name, "written by its adopter");
    // Read through the survivor that is not the adopter: over its TLS link to the adopted broker, once that link is up
    // (until then a consume answers NOT_FOUND … down or inaccessible, as for any queue whose home is unreachable).
    const reader = await sc.connect(owner.node === sc.node(0).name ? 1 : 0);
    const got = new Set<string>();
    await eventually(async () => {
      const sub = await reader.createChannel();
      sub.on("error", () => undefined);
      const all = new Promise<void>((resolve) => {
        sub.consume("tls-adopt", (m) => {
          if (m === null) return;
          got.add(m.content.toString());
          sub.ack(m);
          if (got.size === 11) resolve();
        }).catch(() => undefined);
      });
      return withTimeout(all, 5000, "every message of tls-adopt").then(() => true, () => false);
    }, 30_000, "every message of tls-adopt through the survivor that did not adopt it");
    assert.ok(got.has("a0") && got.has("a9") && got.has("after"));
  });

  sc.it("has a node whose CA did not sign the others' certificate say so once per member, and link to none", async () => {
    const stranger = { name: "stranger@test", amqpPort: await freePort(), httpPort: await freePort(), dataDir: join(cluster.dir, "stranger"), proc: null, log: "", extraArgs: ["--tls-cert", other.serverCert, "--tls-key", other.serverKey, "--tls-ca", other.caCert] };
    cluster.nodes.push(stranger);
    try {
      cluster.startNode(stranger);
      const refusals = (): string[] => stranger.log.split("\n").filter((l) => l.includes('"msg":"spread cluster: a node\'s link certificate was refused"'));
      // node0 and node1 (and node2's record, served by its adopter since the test before): each refused.
      const refusedNodes = (): string[] => refusals().map((l) => /"node":"([^"]+)"/.exec(l)?.[1] ?? "");
      await eventually(() => [sc.node(0).name, sc.node(1).name].every((n) => refusedNodes().includes(n)), 30_000, "the stranger to refuse both live members' certificates");
      // Its link attempts are retried every 500 ms, as its store followers are (each retry logs "following a store"):
      // after several more rounds, still one warning per member.
      const rounds = (): number => (stranger.log.match(/spread cluster: following a store/g) ?? []).length;
      const mark = rounds();
      await eventually(() => rounds() >= mark + 12, 20_000, "several more retries");
      const perNode = new Map<string, number>();
      for (const n of refusedNodes()) perNode.set(n, (perNode.get(n) ?? 0) + 1);
      assert.ok([...perNode.values()].every((c) => c === 1), `one warning per member: ${refusals().join("\n")}`);
      assert.ok(!stranger.log.includes("spread cluster: link to a node up"), "no link up across the certificates");
    } catch (err) {
      console.error(`----- stranger@test\n${stranger.log.slice(-6000)}`);
      throw err;
    } finally {
      await cluster.kill(stranger);
      cluster.nodes.pop();
    }
  });
});
