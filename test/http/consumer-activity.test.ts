// Consumer records as RabbitMQ shows them: on a single-active-consumer queue one consumer is
// "single_active" (active) and the others "waiting" (inactive); on other queues every one is "up".
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";

interface ConsumerRecord {
  consumer_tag: string;
  queue: { name: string; vhost: string };
  channel_details: { name: string };
  active: boolean;
  activity_status: string;
}

describe("consumer activity over HTTP", () => {
  const f = useBrokerWithConnection();
  const api = apiClient(() => f.broker.httpUrl);
  const consumersOf = async (queue: string): Promise<ConsumerRecord[]> =>
    ((await api("GET", "/api/consumers/%2f")).json as ConsumerRecord[]).filter((c) => c.queue.name === queue);
  const statusByTag = (cs: ConsumerRecord[]) => Object.fromEntries(cs.map((c) => [c.consumer_tag, [c.active, c.activity_status]]));

  it("marks the earliest consumer of a single-active-consumer queue active and the others waiting, and hands over on cancel", async () => {
    const ch1 = await f.conn.createChannel();
    const ch2 = await f.conn.createChannel();
    await ch1.assertQueue("sac", { arguments: { "x-single-active-consumer": true } });
    await ch1.consume("sac", () => undefined, { consumerTag: "first" });
    await ch2.consume("sac", () => undefined, { consumerTag: "second" });

    await eventually(async () => (await consumersOf("sac")).length === 2, 2000, "two consumers listed");
    assert.deepEqual(statusByTag(await consumersOf("sac")), { first: [true, "single_active"], second: [false, "waiting"] });
    assert.equal((await api("GET", "/api/queues/%2f/sac")).json.single_active_consumer_tag, "first");

    // The single channel view shows the same consumer record.
    const secondChannel = (await consumersOf("sac")).find((c) => c.consumer_tag === "second")!.channel_details.name;
    const details = (await api("GET", `/api/channels/${encodeURIComponent(secondChannel)}`)).json.consumer_details as ConsumerRecord[];
    assert.deepEqual(statusByTag(details), { second: [false, "waiting"] });

    await ch1.cancel("first");
    await eventually(async () => (await consumersOf("sac")).length === 1, 2000, "first consumer gone");
    assert.deepEqual(statusByTag(await consumersOf("sac")), { second: [true, "single_active"] });
    await ch1.close();
    await ch2.close();
  });

  it("shows every consumer of an ordinary queue as up and active", async () => {
    const ch = await f.conn.createChannel();
    await ch.assertQueue("shared-work");
    await ch.consume("shared-work", () => undefined, { consumerTag: "a" });
    await ch.consume("shared-work", () => undefined, { consumerTag: "b" });
    await eventually(async () => (await consumersOf("shared-work")).length === 2, 2000, "two consumers listed");
    assert.deepEqual(statusByTag(await consumersOf("shared-work")), { a: [true, "up"], b: [true, "up"] });
    await ch.close();
  });
});
