// A spread cluster (`--cluster-mode spread`): a stream homed on one node reached from the others
// over the link (the workers' RemoteStreamQueue, frames 50/51) with AMQP 0-9-1. Only a stream that
// asks for one replica (`x-initial-cluster-size: 1`) is accepted before stage 2 replicates a
// node's store; any other stream is refused with PRECONDITION_FAILED. Three real nodes on a real
// etcd; amqplib publishes with confirms through one node and consumes through another.
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { ConsumeMessage } from "amqplib";
import { spreadCluster } from "./spread-fixture.js";
import { withTimeout } from "../helpers/wait.js";

const ONE_REPLICA = { "x-queue-type": "stream", "x-initial-cluster-size": 1 };

describe("a spread cluster: a stream homed on one node, reached from the others", () => {
  const sc = spreadCluster();

  sc.it("refuses a replicated stream, accepts one with one replica on its declaring node", async () => {
    const conn = await sc.connect(1);
    const ch = await conn.createChannel();
    ch.on("error", () => {});
    await assert.rejects(ch.assertQueue("sp-stream-replicated", { durable: true, arguments: { "x-queue-type": "stream" } }), /PRECONDITION_FAILED - stream queue 'sp-stream-replicated' in vhost '\/': stream queues are not supported with cluster_mode spread yet/);
    const ok = await conn.createChannel();
    await ok.assertQueue("sp-stream", { durable: true, arguments: ONE_REPLICA });
    await sc.seenEverywhere("sp-stream", 200);
    for (let i = 0; i < 3; i++) {
      const q = (await sc.api(i, "GET", "/api/queues/%2F/sp-stream")).json as { node: string; type: string };
      assert.deepEqual([q.node, q.type], [sc.node(1).name, "stream"], `node${i}'s record`);
    }
  });

  sc.it("publishes with confirms through one node and consumes from the first offset through another, in order", async () => {
    const pub = await (await sc.connect(0)).createConfirmChannel();
    for (let i = 0; i < 5; i++) pub.sendToQueue("sp-stream", Buffer.from(`s${i}`), { persistent: true });
    await withTimeout(pub.waitForConfirms(), 10_000, "the confirms");
    for (const via of [2, 0]) {
      const ch = await (await sc.connect(via)).createChannel();
      await ch.prefetch(10);
      const got: ConsumeMessage[] = [];
      await withTimeout(
        new Promise<void>((resolve, reject) => {
          ch.consume("sp-stream", (m) => {
            if (m === null) return reject(new Error("cancelled"));
            got.push(m);
            ch.ack(m);
            if (got.length === 5) resolve();
          }, { arguments: { "x-stream-offset": "first" } }).catch(reject);
        }),
        10_000,
        `five messages through node${via}`,
      );
      assert.deepEqual(got.map((m) => [m.content.toString(), Number(m.properties.headers!["x-stream-offset"])]), [0, 1, 2, 3, 4].map((i) => [`s${i}`, i]), `through node${via}`);
      await ch.close();
    }
  });
});
