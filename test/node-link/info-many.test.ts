// The management API's counts of queues led by another node (src/broker/queue/remote-counts.ts):
// all of one leader's stale queues are asked in one INFO_MANY round trip (link-rpc.ts) when both
// ends offer it, one INFO each to a leader of an earlier version; a queue the leader no longer
// has answers null and keeps its last counts. Two real brokers over a real link.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import amqp from "amqplib";
import { awaitFreshCounts, type Queue } from "../../src/broker/index.js";
import { FRAME_HEAD } from "../../src/node-link/link-frames.js";
import { FEATURE_DELIVER_OWN } from "../../src/node-link/link-handshake.js";
import { linkAToB, queueOnB, useTwoNodes } from "./two-nodes.js";

describe("many queues' counts in one ask", () => {
  const fx = useTwoNodes();

  async function publishOnB(counts: Record<string, number>): Promise<void> {
    const conn = await amqp.connect(fx.b.amqpUrl);
    const ch = await conn.createConfirmChannel();
    for (const [q, n] of Object.entries(counts)) for (let i = 0; i < n; i++) ch.sendToQueue(q, Buffer.from("x"));
    await ch.waitForConfirms();
    await conn.close();
  }

  it("answers every queue in order, null for one the leader does not have, in one frame each way", async () => {
    const link = await linkAToB(fx);
    const names = ["im-1", "im-2", "im-3"];
    const onA = names.map((n) => queueOnB(fx, link, n).onA);
    await publishOnB({ "im-1": 1, "im-2": 2, "im-3": 3 });
    assert.deepEqual(await link.infoMany(onA), [1, 2, 3].map((messages) => ({ messages, consumers: 0, unacked: 0 })));
    // Its ids are known on the link now: the next ask is exactly one INFO_MANY frame on B's side.
    fx.b.broker.deleteQueue({ permissions: fx.b.broker.checkerFor("guest"), owner: null }, "/", "im-2", { ifUnused: false, ifEmpty: false });
    const socket = fx.accepted.at(-1)!;
    const before = socket.bytesRead;
    assert.deepEqual(await link.infoMany(onA), [{ messages: 1, consumers: 0, unacked: 0 }, null, { messages: 3, consumers: 0, unacked: 0 }]);
    assert.equal(socket.bytesRead - before, FRAME_HEAD + 9 + 4 * names.length);
    link.close();
  });

  it("asks a leader without the feature one INFO per queue, with the same answers", async () => {
    const link = await linkAToB(fx, fx.secret, undefined, FEATURE_DELIVER_OWN);
    const onA = ["im-old-1", "im-old-2"].map((n) => queueOnB(fx, link, n).onA);
    await publishOnB({ "im-old-1": 4, "im-old-2": 5 });
    assert.deepEqual(await link.infoMany(onA), [{ messages: 4, consumers: 0, unacked: 0 }, { messages: 5, consumers: 0, unacked: 0 }]);
    link.close();
  });

  it("awaitFreshCounts gives A's RemoteQueues the leader's counts before it resolves", async () => {
    const link = await linkAToB(fx);
    const onA: Queue[] = ["im-fresh-1", "im-fresh-2"].map((n) => queueOnB(fx, link, n).onA);
    await publishOnB({ "im-fresh-1": 6, "im-fresh-2": 7 });
    await awaitFreshCounts(onA);
    // Read right after: no refresh behind the answer is needed, the counts are the leader's.
    assert.deepEqual(onA.map((q) => q.messageCount), [6, 7]);
    link.close();
  });
});
