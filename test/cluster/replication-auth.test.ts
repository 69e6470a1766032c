// The replication port admits only a node that holds the cluster's secret (src/cluster/
// replication-auth.ts). Pure pieces first, then a stranger against a real leader on a real etcd:
// it gets a challenge and nothing else, whatever it sends.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { Etcd3 } from "etcd3";
import { FrameSplitter, FrameType, nameHead, sendFrame } from "../../src/cluster/replication-frames.js";
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
    const leader = await cluster.waitForLeader();
    const etcd = new Etcd3({ hosts: cluster.etcdUrl });
    try {
      const info = JSON.parse((await etcd.get(`/coney/test/members/${leader.name}`).string()) ?? "{}") as { clusterPort?: number };
      port = info.clusterPort ?? 0;
    } finally {
      etcd.close();
    }
    assert.ok(port > 0, "the leader's replication port is in etcd");
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
