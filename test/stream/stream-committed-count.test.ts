// A stream's message count (queue.declare-ok, the management API, Prometheus) counts committed
// messages only, as RabbitMQ's does (its writer's counters, sampled): a message a publisher has
// not been confirmed yet is not counted (issue 48: the client's suite reads the count over HTTP
// and then expects the confirm to have arrived). The store's beforeSync hook runs once a group
// commit's messages are appended and before they are synced and confirmed: there the count must
// not include them.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StreamQueue } from "../../src/broker/index.js";
import { MessageStore } from "../../src/store/message-store.js";
import { apiClient } from "../helpers/http-client.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";
import { useStreamBroker } from "./stream-helpers.js";

describe("a stream's message count follows its commits", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-stream-count-"));
  const f = useStreamBroker({ dataDir });
  // After the broker's own after-hook (node:test runs them in the order they were added).
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const api = apiClient(() => f.b.httpUrl);

  it("does not count a message before the sync that confirms it", async () => {
    await f.client.createStream({ stream: "counted" });
    const q = f.b.broker.vhosts.get("/")!.queues.get("counted");
    assert.ok(q instanceof StreamQueue);
    const store = f.b.broker.journal;
    assert.ok(store instanceof MessageStore, "a broker with a data dir keeps its messages in the message store");
    const confirmed = collector<bigint>(3);
    // What the count said at each group commit, before its sync: appended, not yet confirmed.
    const seenBeforeSync: { count: number; appended: number; confirmed: number }[] = [];
    let confirms = 0;
    const previous = store.beforeSync;
    store.beforeSync = () => {
      seenBeforeSync.push({ count: q.messageCount, appended: q.stream.nextOffset, confirmed: confirms });
      return previous === null ? true : previous();
    };
    try {
      const p = await f.client.declarePublisher({ stream: "counted", publisherRef: "counter" });
      p.on("publish_confirm", (err, ids) => {
        if (err !== null) return;
        confirms += ids.length;
        for (const id of ids) confirmed.push(id);
      });
      for (const id of [1n, 2n, 3n]) await p.basicSend(id, Buffer.from(`m${id}`));
      await withTimeout(confirmed.done, 5000, "the confirms");
    } finally {
      store.beforeSync = previous;
    }
    const withMessages = seenBeforeSync.filter((s) => s.appended > 0);
    assert.ok(withMessages.length > 0, "a group commit wrote the messages");
    for (const s of withMessages) assert.ok(s.count <= s.confirmed, `counted ${s.count} with ${s.confirmed} confirmed (${s.appended} appended)`);
    assert.equal(q.messageCount, 3);
    const record = await api("GET", "/api/queues/%2F/counted");
    assert.equal(record.json.messages, 3);
    assert.equal(record.json.messages_ready, 3);
  });

  it("shows a message over HTTP only once its publisher has the confirm (the client's suite's test)", async () => {
    await f.client.createStream({ stream: "counted-http" });
    const p = await f.client.declarePublisher({ stream: "counted-http", publisherRef: "suite" });
    const responses: { error: number | null; ids: bigint[] }[] = [];
    p.on("publish_confirm", (error, ids) => responses.push({ error, ids }));
    await p.basicSend(1n, Buffer.from("one"));
    await eventually(async () => {
      const messages = (await api("GET", "/api/queues/%2F/counted-http")).json.messages as number;
      // Checked at each look, not only at the last: a count ahead of the confirm is the fault.
      if (messages > 0) assert.deepEqual(responses, [{ error: null, ids: [1n] }]);
      return messages === 1;
    }, 5000, "the message counted");
  });
});
