// The replication port admits only a node that holds the cluster's secret (src/cluster/
// replication-auth.ts). Pure pieces first, then a stranger against a real leader on a real etcd:
// it gets a challenge and nothing else, whatever it sends.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect, createServer, type Socket } from "node:net";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FrameSplitter, FrameType, f64, nameHead, sendFrame } from "../../src/cluster/replication-frames.js";
import { ReplicationFollower } from "../../src/cluster/replication-follower.js";
import { createLogger } from "../../src/logging/logger.js";
import { replicationTransport } from "../../src/cluster/replication-transport.js";

const PLAIN = replicationTransport({ clusterTls: false, tlsCert: null, tlsKey: null, tlsCa: null });
import { followerProof, leaderProof, newNonce, newSecret, proofMatches } from "../../src/cluster/replication-auth.js";
import { TestCluster } from "./cluster-fixture.js";

describe("replication proofs", () => {
  it("match only with the same secret, nonces, name and role", () => {
    const secret = newSecret();
    const [fn, ln] = [newNonce(), newNonce()];
    const good = followerProof(secret, fn, ln, "a@h");
    assert.ok(proofMatches(good, followerProof(secret, fn, ln, "a@h")));
    assert.ok(!proofMatches(good, followerProof(newSecret(), fn, ln, "a@h")), "another secret");
    assert.ok(!proofMatches(good, followerProof(secret, newNonce(), ln, "a@h")), "another nonce");
    assert.ok(!proofMatches(good, followerProof(secret, fn, ln, "b@h")), "another name");
    assert.ok(!proofMatches(good, leaderProof(secret, fn, ln, "a@h")), "the leader's proof reflected back");
    assert.ok(!proofMatches(good.subarray(0, 16), followerProof(secret, fn, ln, "a@h")), "a short proof");
  });

  it("refuses a frame larger than the splitter allows", () => {
    const s = new FrameSplitter(() => assert.fail("no frame expected"));
    s.maxFrame = 1024;
    const head = Buffer.alloc(5);
    head.writeUInt32LE(1_000_000, 0);
    assert.throws(() => s.push(head), /replication frame of 1000000 bytes refused/);
  });
});

describe("a follower against a leader without the secret", () => {
  it("refuses it after its challenge, sends no proof, and keeps its copy", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-follower-"));
    writeFileSync(join(dataDir, "definitions.json"), "{}");
    const received: FrameType[] = [];
    // A peer that answers Hello with a made-up proof, then streams a snapshot at once.
    const server = createServer((s) => {
      s.on("error", () => undefined);
      const splitter = new FrameSplitter((type) => {
        received.push(type);
        if (type !== FrameType.Hello) return;
        sendFrame(s, FrameType.Challenge, newNonce(), [Buffer.alloc(32, 1)]);
        sendFrame(s, FrameType.SnapFile, nameHead("definitions.json", f64(0)), [Buffer.from("{\"evil\":true}")]);
      });
      s.on("data", (d: Buffer) => splitter.push(d));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const port = (server.address() as { port: number }).port;
    try {
      const closed = new Promise<ReplicationFollower>((resolve) => {
        new ReplicationFollower({ leader: "fake@h", host: "127.0.0.1", port }, "me@h", newSecret(), PLAIN, dataDir, createLogger("silent"), resolve);
      });
      const f = await closed;
      assert.ok(f.refused, "the follower refused the peer");
      assert.deepEqual(received, [FrameType.Hello], "no proof was sent");
      assert.ok(existsSync(join(dataDir, "definitions.json")), "the copy was not wiped");
      assert.ok(!existsSync(join(dataDir, "cluster-copy-incomplete")), "nor marked incomplete");
    } finally {
      server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

interface Exchange {
  readonly frames: FrameType[];
  readonly closed: Promise<void>;
  readonly socket: Socket;
}

/** Opens a raw connection to a replication port and records the types of the frames it receives. */
function open(port: number, onFrame: (type: FrameType, payload: Buffer, socket: Socket) => void = () => undefined): Exchange {
  const socket = connect({ host: "127.0.0.1", port });
  const frames: FrameType[] = [];
  const splitter = new FrameSplitter((type, payload) => {
    frames.push(type);
    onFrame(type, payload, socket);
  });
  socket.on("data", (d: Buffer) => splitter.push(d));
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  return { frames, closed, socket };
}

describe("replication port against a stranger", { timeout: 90_000 }, () => {
  const cluster = new TestCluster(3);
  let port = 0;
  before(async () => {
    await cluster.start();
    await cluster.waitForInSync(3);
    port = await cluster.replicationPort(await cluster.waitForLeader());
  });
  after(() => cluster.close());

  it("sends a stranger with a wrong proof nothing but its challenge, then closes", async () => {
    const x = open(port, (type, _payload, socket) => {
      if (type === FrameType.Challenge) sendFrame(socket, FrameType.Proof, Buffer.alloc(32, 7));
    });
    x.socket.on("connect", () => sendFrame(x.socket, FrameType.Hello, nameHead("intruder@h", newNonce())));
    await x.closed;
    assert.deepEqual(x.frames, [FrameType.Challenge]);
  });

  it("closes a connection that skips the handshake or announces a huge frame", async () => {
    const skip = open(port);
    skip.socket.on("connect", () => sendFrame(skip.socket, FrameType.Ack, Buffer.alloc(8)));
    await skip.closed;
    assert.deepEqual(skip.frames, []);
    const huge = open(port);
    huge.socket.on("connect", () => {
      const head = Buffer.alloc(5);
      head.writeUInt32LE(512 * 1024 * 1024, 0);
      head[4] = FrameType.Hello;
      huge.socket.write(head);
    });
    await huge.closed;
    assert.deepEqual(huge.frames, []);
  });

  it("keeps serving its followers meanwhile", async () => {
    const nodes = await cluster.waitForInSync(3);
    assert.equal(nodes.filter((n) => n.in_sync).length, 3);
  });
});
