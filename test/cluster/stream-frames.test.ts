// The stream replication frames end to end in one process, over real TCP: a real
// ReplicationLeader fed by a real chunk log's tap (chunks, a side file, retention, deletion) and
// real ReplicationFollowers writing their copies — one live from before the first chunk, one
// joining later by a full sync. Each copy must end byte for byte equal to the leader's files.
// (The multi-process cases, with etcd, brokers and kill -9, are in stream-replication.test.ts.)
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo, Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReplicationLeader } from "../../src/cluster/replication-leader.js";
import { ReplicationFollower } from "../../src/cluster/replication-follower.js";
import { replicationTransport } from "../../src/cluster/replication-transport.js";
import { streamFileNames, streamSideFileNames } from "../../src/cluster/copy-manifest.js";
import { ChunkLog } from "../../src/store/stream/chunk-log.js";
import { streamTap } from "../../src/store/stream/stream-files.js";
import { createLogger } from "../../src/logging/logger.js";
import { eventually } from "../helpers/wait.js";

const ID = "0123456789abcdef0123456789abcdef";
const filesOf = (dir: string): Map<string, Buffer> => new Map([...streamFileNames(dir), ...streamSideFileNames(dir)].map((f) => [f, readFileSync(join(dir, f))]));

describe("stream replication frames", () => {
  const root = mkdtempSync(join(tmpdir(), "coney-stream-frames-"));
  const logger = createLogger("silent");
  const secret = Buffer.alloc(32, 7);
  const transport = replicationTransport({ clusterTls: false, tlsCert: null, tlsKey: null, tlsCa: null });
  const leaderDir = join(root, "leader");
  const leader = new ReplicationLeader(leaderDir, secret, { writeInSync: async () => true, minInSync: () => 0, leaseValid: () => true, leaseExpired: () => false, deposed: () => undefined, ackTimeoutMs: 400 }, logger);
  let server: Server | null = null;
  const followers: ReplicationFollower[] = [];
  after(() => {
    for (const f of followers) f.close();
    leader.fence();
    server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  let batch = 0;
  /** One group-commit batch as the message store runs it: chunks placed (tapped), written, synced, ended. */
  async function commit(log: ChunkLog, work: () => void): Promise<void> {
    const b = ++batch;
    work();
    const written = log.flush(true);
    leader.batchEnd(b, true);
    await written;
    leader.batchWritten();
  }
  const follow = (name: string): ReplicationFollower => {
    const port = (server!.address() as AddressInfo).port;
    const f = new ReplicationFollower({ leader: "leader", host: "127.0.0.1", port }, name, secret, transport, join(root, name), logger, () => undefined);
    followers.push(f);
    return f;
  };
  const acked = (name: string, b: number): Promise<void> => eventually(() => (leader.followers.get(name)?.acked ?? -1) >= b, 10_000, `${name} to acknowledge batch ${b}`);

  it("mirrors chunks, side files, retention and deletion on a live follower and on one that joins later", async () => {
    server = transport.server((s) => leader.accept(s));
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const log = ChunkLog.open({ dir: join(leaderDir, "streams", ID), maxSegmentBytes: 900, tap: streamTap(ID, () => leader) });
    // Batch 0 is the snapshot point: the live follower is in sync before any chunk exists.
    const live = follow("live");
    await eventually(() => live.synced || leader.followers.get("live")?.state === "live", 10_000, "the live follower's snapshot");
    await commit(log, () => undefined);
    await acked("live", batch);

    const body = (i: number): Buffer => Buffer.alloc(300, i % 251);
    for (let round = 0; round < 6; round++) {
      await commit(log, () => {
        log.append([body(round * 3), body(round * 3 + 1), body(round * 3 + 2)]);
        log.writeSideFile("tracking.json", JSON.stringify({ offsets: { reader: round * 3 } }));
      });
    }
    assert.ok(log.segmentCount >= 4, `segments: ${log.segmentCount}`);
    await acked("live", batch);
    assert.deepEqual(filesOf(join(root, "live")), filesOf(leaderDir));

    // Retention deletes the oldest segments; a follower that joins now gets what is left by a full sync.
    const before = streamFileNames(leaderDir);
    assert.ok(log.applyRetention({ maxBytes: 3000, maxAgeMs: 0 }) > 0);
    await commit(log, () => undefined);
    const late = follow("late");
    await acked("live", batch);
    await eventually(() => late.synced, 10_000, "the late follower's full sync");
    await commit(log, () => log.append([body(99)]));
    await acked("late", batch);
    await acked("live", batch);
    const now = filesOf(leaderDir);
    assert.ok(!now.has(before[0]!), "the oldest segment was deleted on the leader");
    assert.deepEqual(filesOf(join(root, "live")), now);
    assert.deepEqual(filesOf(join(root, "late")), now);
    // Sealed segments the live follower wrote whole have digests on both sides (compared, not read, at a catch-up).
    const sealed = streamFileNames(leaderDir).slice(0, -1);
    assert.ok(sealed.length > 0 && sealed.every((f) => existsSync(join(leaderDir, `${f}.sha256`)) && existsSync(join(root, "live", `${f}.sha256`))));
    assert.deepEqual(sealed.map((f) => readFileSync(join(root, "live", `${f}.sha256`), "utf8")), sealed.map((f) => readFileSync(join(leaderDir, `${f}.sha256`), "utf8")));

    // Deleting the stream deletes it everywhere.
    log.destroy();
    await commit(log, () => undefined);
    await acked("live", batch);
    await acked("late", batch);
    for (const n of ["live", "late"]) assert.equal(existsSync(join(root, n, "streams", ID)), false, `${n} deleted the stream`);
  });
});
