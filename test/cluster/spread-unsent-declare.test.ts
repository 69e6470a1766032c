// A spread node's own declare that has not left for etcd yet (its batch is sent at the end of the
// event-loop turn, MirrorOutbox) when another node's claim and declare of the same queue arrive
// through the watch in the same poll phase (src/cluster/spread-definitions.ts `apply`): the other
// node's batch is first in etcd's order, so this node's declare must be judged as a pending one —
// the winner's record stands here and this node's client is refused (406), as when its batch had
// left a moment earlier. Before, the node took itself for idle, applied the winner's record as if
// nothing of its own waited (it did not apply: the queue existed here with other arguments), and
// kept the losing copy's arguments while its client heard ok. Real etcd, a real broker and the
// real SpreadDefinitions; the watch's events are handed to it as the watch hands them.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Broker } from "../../src/broker/index.js";
import { adminContext } from "../../src/broker/definitions.js";
import { SYSTEM_ACTOR } from "../../src/broker/events/actor.js";
import { EtcdSession } from "../../src/cluster/etcd-session.js";
import { SpreadDefinitions } from "../../src/cluster/spread-definitions.js";
import { SpreadKeys } from "../../src/cluster/spread-keys.js";
import { SpreadPlacement } from "../../src/cluster/spread-placement.js";
import { createLogger } from "../../src/logging/logger.js";
import { withTimeout } from "../helpers/wait.js";
import { TestCluster } from "./cluster-fixture.js";

describe("a spread node's declare not yet sent when another node's declare of the same queue arrives", { timeout: 60_000 }, () => {
  it("is judged as pending: the other node's record stands here and the declare is refused", async () => {
    const etcd = new TestCluster(0);
    after(() => etcd.close());
    await etcd.startEtcd();
    const session = new EtcdSession([etcd.etcdUrl], 5, createLogger("silent"));
    after(() => session.close());
    const keys = new SpreadKeys("unsent");
    const broker = new Broker();
    broker.putVhost("/", {});
    const placement = new SpreadPlacement(broker, "node0@t", "client-local");
    placement.members = ["node0@t", "node1@t"];
    broker.placeQueuesWith(placement);
    const defs = new SpreadDefinitions(broker, session, keys, placement, createLogger("silent"));
    after(() => defs.close());
    defs.follow(null);

    // node1 claimed and logged `q` first (one transaction, as its commit writes them).
    const theirs = { vhost: "/", name: "q", durable: true, auto_delete: false, arguments: { "x-max-length": 7 } };
    const logged = JSON.stringify({ from: "node1@t", batch: [{ kind: "queues", op: "put", record: theirs }] });
    const put = await session.client.if(keys.queue("/", "q"), "Create", "==", 0).then(session.client.put(keys.queue("/", "q")).value("node1@t"), session.client.put(keys.log("node1@t")).value(logged)).commit();
    const revision = Number(put.header.revision);

    // This node's client declares `q` with other arguments (nowait: nothing flushes the batch in
    // this turn); in the same poll phase, before the batch is sent, the watch hands over node1's
    // claim and log (in that order: one revision). The verdict asked after them judges the declare.
    broker.declareQueue(adminContext(broker, SYSTEM_ACTOR), "/", { name: "q", durable: true, autoDelete: false, exclusiveOwner: null, arguments: { "x-max-length": 5 } }, false);
    defs.event(keys.queue("/", "q"), "node1@t", revision);
    defs.event(keys.log("node1@t"), logged, revision);
    const verdict = broker.mirror!.verdict!();

    await assert.rejects(withTimeout(verdict, 15_000, "the declare's verdict"), (err: Error) => {
      assert.match(err.message, /inequivalent arg 'x-max-length' for queue 'q' in vhost '\/'/);
      return true;
    });
    const q = broker.vhost("/").queues.get("q")!;
    assert.equal(q.leadsElsewhere, true, "this node holds node1's queue remotely");
    assert.deepEqual(q.arguments, { "x-max-length": 7 }, "the winner's record stands here");
  });
});
