// `coney --workers 2`: /api/queues read through the worker that does not lead a queue answers the
// leader's counts no older than the bound (INFO_MAX_AGE_MS), on the very first read after idle —
// it used to answer the cached figures and ask again behind the answer. A list asks each leading
// worker once for all its queues; a leader that does not answer in time (frozen with SIGSTOP)
// leaves the last known counts, marked `counts_stale`. A stream's log figures are as fresh. Real process tree, real amqplib, real HTTP.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import amqp, { type ChannelModel, type ConfirmChannel } from "amqplib";
import { eventually, withTimeout } from "../helpers/wait.js";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";
import { leaderIndex, pinnedApis, type PinnedApi } from "./pinned-workers.js";
import { INFO_MAX_AGE_MS } from "../../src/broker/queue/remote-queue.js";
import { COUNTS_WAIT_MS } from "../../src/broker/index.js";

interface QueueJson {
  name: string;
  node: string;
  messages: number;
  messages_ready: number;
  consumers: number;
  counts_stale?: boolean;
  counts_sampled_at?: string | null;
  committed_offset?: number;
  last_offset?: number;
}

/** `n` queue names (prefix-i) led by worker 0. */
function ledByW0(prefix: string, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) if (leaderIndex(`${prefix}-${i}`) === 0) out.push(`${prefix}-${i}`);
  return out;
}

/** Longer than the bound: the next read finds the cached counts stale. */
const idle = (): Promise<void> => sleep(INFO_MAX_AGE_MS + 100);

describe("/api/queues through a worker that does not lead the queue: fresh counts", () => {
  let p: WorkersProcess;
  let conn: ChannelModel;
  let ch: ConfirmChannel;
  let w0: PinnedApi;
  let w1: PinnedApi;

  before(async () => {
    p = await startWorkers();
    [w0, w1] = (await pinnedApis(p.httpPort)) as [PinnedApi, PinnedApi];
    assert.match(w0.node, /^coney-w0@/);
    conn = await amqp.connect(p.amqpUrl);
    conn.on("error", () => {});
    ch = await conn.createConfirmChannel();
  });
  after(async () => {
    w0?.close();
    w1?.close();
    await withTimeout(conn.close(), 5000, "the connection's close").catch(() => {});
    await p.close();
  });

  /** Declares `names` and waits until worker 1 knows them all (the definitions relay). */
  async function declare(names: readonly string[]): Promise<void> {
    for (const q of names) await ch.assertQueue(q, { durable: true });
    await eventually(async () => {
      const list = (await w1.request("GET", "/api/queues/%2F")).json as QueueJson[];
      return names.every((n) => list.some((q) => q.name === n));
    }, 10_000, "worker 1 lists the queues");
  }

  /** Publishes `n` messages to `queue` and waits for their confirms (stored on the leader). */
  async function publish(queue: string, n: number): Promise<void> {
    for (let i = 0; i < n; i++) ch.sendToQueue(queue, Buffer.from(`m${i}`), { persistent: true });
    await ch.waitForConfirms();
  }

  it("one queue: the first read after idle shows every confirmed message", async () => {
    const [q] = ledByW0("fresh-one", 1) as [string];
    await declare([q]);
    const path = `/api/queues/%2F/${q}`;
    // A first read (it fills worker 1's cache), then more messages, then idle past the bound.
    assert.equal(((await w1.request("GET", path)).json as QueueJson).messages, 0);
    await publish(q, 37);
    await idle();
    const one = (await w1.request("GET", path)).json as QueueJson;
    assert.equal(one.node, w0.node);
    assert.equal(one.messages, 37);
    assert.equal(one.messages_ready, 37);
    assert.equal(one.counts_stale, undefined);
    // The list shows the same, on its first read after the next change and idle.
    await publish(q, 5);
    await idle();
    const listed = ((await w1.request("GET", "/api/queues")).json as QueueJson[]).find((x) => x.name === q)!;
    assert.equal(listed.messages, 42);
  });

  it("a list of many queues led by the other worker: exact counts for each on one read", async () => {
    const names = ledByW0("fresh-many", 24);
    await declare(names);
    // Read once so each is cached at 0, then change every one of them.
    await w1.request("GET", "/api/queues/%2F");
    for (let i = 0; i < names.length; i++) await publish(names[i]!, i + 1);
    await idle();
    const list = (await w1.request("GET", "/api/queues/%2F")).json as QueueJson[];
    for (let i = 0; i < names.length; i++) {
      const q = list.find((x) => x.name === names[i])!;
      assert.equal(q.node, w0.node);
      assert.equal(q.messages, i + 1, `${names[i]}'s count`);
      assert.equal(q.counts_stale, undefined);
    }
  });

  it("a stream led by the other worker: its log's figures on the first read after idle", async () => {
    const [q] = ledByW0("fresh-stream", 1) as [string];
    await ch.assertQueue(q, { durable: true, arguments: { "x-queue-type": "stream" } });
    await eventually(async () => (await w1.request("GET", `/api/queues/%2F/${q}`)).status === 200, 10_000, "worker 1 knows the stream");
    const path = `/api/queues/%2F/${q}`;
    assert.equal(((await w1.request("GET", path)).json as QueueJson).committed_offset, -1);
    await publish(q, 20);
    await idle();
    const s = (await w1.request("GET", path)).json as QueueJson;
    assert.equal(s.node, w0.node);
    assert.equal(s.committed_offset, 19);
    assert.equal(s.last_offset, 19);
  });

  it("a leader that does not answer in time: the last known counts, marked stale, within the wait", async () => {
    const [q] = ledByW0("fresh-frozen", 1) as [string];
    await declare([q]);
    await publish(q, 3);
    await idle();
    const path = `/api/queues/%2F/${q}`;
    assert.equal(((await w1.request("GET", path)).json as QueueJson).messages, 3);
    const pid = p.lines.find((l) => l.msg === "worker started" && l["worker"] === "w0")?.["pid"] as number;
    assert.equal(typeof pid, "number");
    await idle();
    // Frozen well inside the primary's heartbeat limit (3 missed beats of 1 s): its link stays up, unanswered.
    process.kill(pid, "SIGSTOP");
    let frozen: QueueJson;
    const started = Date.now();
    try {
      frozen = (await w1.request("GET", path)).json as QueueJson;
    } finally {
      process.kill(pid, "SIGCONT");
    }
    const took = Date.now() - started;
    assert.ok(took >= COUNTS_WAIT_MS - 50, `answered after the wait (${took} ms)`);
    assert.equal(frozen.messages, 3);
    assert.equal(frozen.counts_stale, true);
    assert.ok(typeof frozen.counts_sampled_at === "string" && Date.parse(frozen.counts_sampled_at) <= started);
    // Thawed: the next read has its answer again, and says nothing of staleness.
    await eventually(async () => ((await w1.request("GET", path)).json as QueueJson).counts_stale === undefined, 10_000, "fresh counts after the thaw");
  });
});
