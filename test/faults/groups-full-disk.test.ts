// A full disk under a node with two queue groups (src/store/grouped-journal.ts): a publish that
// reaches a queue in each group is confirmed only when both group stores wrote it; one that
// either could not write is nacked and kept by neither queue, and every confirmed message is in
// both queues, also after a restart.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { rmSync } from "node:fs";
import amqp from "amqplib";
import { startTestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { drain } from "../store/store-harness.js";
import { fillDisk, publishUntilNacked, sortedIds as sorted, tmpfsForSuite } from "./fault-harness.js";

const BODY = Buffer.alloc(4096, 0x62);

describe("fault: full disk under two queue groups", () => {
  const mountPoint = tmpfsForSuite(24);

  it("nacks what either group could not write, keeps it in neither queue, and keeps every confirmed message in both", async (t) => {
    const dataDir = join(mountPoint(), "data");
    const b = await startTestBroker({ dataDir, diskFreeLimit: 0, queueGroups: 2 });
    t.after(() => b.close());
    const conn = await amqp.connect(b.amqpUrl);
    const ch = await conn.createConfirmChannel();
    // Two queues on an empty node with two groups: one in each.
    for (const q of ["left", "right"]) {
      await ch.assertQueue(q, { durable: true });
      await ch.bindQueue(q, "amq.fanout", "");
    }
    const api = apiClient(() => b.httpUrl);
    const groups = [(await api("GET", "/api/queues/%2F/left")).json.group, (await api("GET", "/api/queues/%2F/right")).json.group];
    assert.deepEqual(groups.sort(), ["g0", "g1"]);
    // Records of 'left' only first, so the two stores' record refs differ (a ref means something only in its own store).
    for (let i = 0; i < 37; i++) ch.sendToQueue("left", Buffer.alloc(777 + i, 0x6c), { persistent: true, messageId: `l${i}` });
    await ch.waitForConfirms();
    const filler = fillDisk(mountPoint(), 3 << 20);
    t.after(() => rmSync(filler, { force: true }));

    const { acked, nacked } = await publishUntilNacked(ch, 100, BODY);
    assert.ok(acked.length > 50, `some messages fit on the disk (${acked.length} confirmed)`);
    const v = b.broker.vhost("/");
    assert.equal(v.queues.get("left")!.messageCount, 37 + acked.length, `left holds its own 37 and exactly the ${acked.length} confirmed messages, none of the ${nacked.length} nacked`);
    assert.equal(v.queues.get("right")!.messageCount, acked.length, `right holds exactly the ${acked.length} confirmed messages, none of the ${nacked.length} nacked`);
    await conn.close();
    await b.close();
    rmSync(filler, { force: true });

    const b2 = await startTestBroker({ dataDir, diskFreeLimit: 0 });
    t.after(() => b2.close());
    const conn2 = await amqp.connect(b2.amqpUrl);
    const ch2 = await conn2.createChannel();
    const own = Array.from({ length: 37 }, (_, i) => `l${i}`);
    for (const q of ["left", "right"]) {
      const recovered = (await drain(ch2, q)).map((m) => m.properties.messageId as string);
      assert.deepEqual(recovered, [...(q === "left" ? own : []), ...sorted(acked)], `${q} after a restart: every confirmed message, in order, and no nacked one`);
    }
    await conn2.close();
  });
});
