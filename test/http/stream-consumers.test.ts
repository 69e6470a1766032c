// Native stream subscriptions among the consumers of the management API (issue 47: "every consumer
// of every protocol in /api/consumers, consumer_details and the counts agreeing"). Recorded against
// RabbitMQ 3.10.8 with a raw stream client on 5552: /api/consumers lists a subscription with
// consumer_tag "stream.subid-<id>", channel_details {name: "", number: 0, connection_name: the
// stream connection's name, user, peer_host, peer_port}, ack_required false, exclusive false,
// prefetch_count 0, active true, activity_status "up" and its properties as arguments; the stream's
// consumer_details lists the same record, and object_totals.consumers counts it.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import { Offset, type Client } from "rabbitmq-stream-js-client";
import type { TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { startStreamBroker, streamClient } from "../stream/stream-helpers.js";

interface ConsumerRecord {
  consumer_tag: string;
  queue: { name: string; vhost: string };
  channel_details: { name: string; number: number; connection_name: string; user: string; peer_host: string; peer_port: number };
  ack_required: boolean;
  exclusive: boolean;
  prefetch_count: number;
  active: boolean;
  activity_status: string;
  arguments: Record<string, unknown>;
}

describe("native stream subscriptions in /api/consumers", () => {
  let b: TestBroker & { streamPort: number };
  let guest: Client;
  let other: Client;
  let conn: ChannelModel;
  const api = apiClient(() => b.httpUrl);
  before(async () => {
    b = await startStreamBroker();
    for (const [path, body] of [
      ["/api/users/carol", { password: "carol-pw", tags: "management" }],
      ["/api/permissions/%2F/carol", { configure: ".*", write: ".*", read: ".*" }],
    ] as const) assert.ok((await api("PUT", path, body)).status < 300, path);
    guest = await streamClient(b);
    await guest.createStream({ stream: "ledger", arguments: {} });
    other = await streamClient(b, { username: "carol", password: "carol-pw" });
    conn = await amqp.connect(b.amqpUrl);
  });
  after(async () => {
    await conn?.close().catch(() => undefined);
    await other?.close().catch(() => undefined);
    await guest?.close().catch(() => undefined);
    await b?.close();
  });

  it("lists each subscription as RabbitMQ 3.10 does, in its stream's consumer_details, with totals that agree", async () => {
    await guest.declareConsumer({ stream: "ledger", offset: Offset.first(), consumerRef: "ledger-reader", singleActive: true }, () => undefined);
    await other.declareConsumer({ stream: "ledger", offset: Offset.next() }, () => undefined);
    // Native subscribers alone make the stream's consumers ready to take messages.
    await eventually(async () => (await api("GET", "/api/queues/%2F/ledger")).json.consumers === 2, 5000, "two subscriptions counted");
    assert.equal((await api("GET", "/api/queues/%2F/ledger")).json.consumer_utilisation, 1);
    // An AMQP 0-9-1 consumer of the same stream beside them.
    const ch = await conn.createChannel();
    await ch.prefetch(10);
    await ch.consume("ledger", () => undefined, { arguments: { "x-stream-offset": "first" } });
    await eventually(async () => ((await api("GET", "/api/consumers")).json as unknown[]).length === 3, 5000, "three consumers listed");

    const all = (await api("GET", "/api/consumers")).json as ConsumerRecord[];
    const native = all.filter((c) => c.consumer_tag.startsWith("stream.subid-"));
    assert.equal(native.length, 2, JSON.stringify(all));
    const mine = native.find((c) => c.channel_details.user === "guest")!;
    const conns = (await api("GET", "/api/stream/consumers")).json as { connection_details: { name: string; user: string }; subscription_id: number }[];
    const subscription = conns.find((c) => c.connection_details.user === "guest")!;
    assert.equal(mine.consumer_tag, `stream.subid-${subscription.subscription_id}`);
    assert.deepEqual(mine.queue, { name: "ledger", vhost: "/" });
    assert.equal(mine.channel_details.name, "");
    assert.equal(mine.channel_details.number, 0);
    assert.equal(mine.channel_details.connection_name, subscription.connection_details.name);
    assert.equal(mine.channel_details.peer_host, "127.0.0.1");
    assert.equal(typeof mine.channel_details.peer_port, "number");
    assert.deepEqual(
      [mine.ack_required, mine.exclusive, mine.prefetch_count, mine.active, mine.activity_status],
      // A single-active-consumer group's member that has the turn (RabbitMQ 3.11's status; 3.10 has no such groups).
      [false, false, 0, true, "single_active"],
    );
    assert.deepEqual(mine.arguments, { "single-active-consumer": "true", name: "ledger-reader" }, "the subscription's properties are its arguments");
    const plain = native.find((c) => c.channel_details.user === "carol")!;
    assert.deepEqual([plain.active, plain.activity_status, plain.arguments], [true, "up", {}]);

    assert.equal(((await api("GET", "/api/consumers/%2F")).json as unknown[]).length, 3);
    const q = (await api("GET", "/api/queues/%2F/ledger")).json as { consumers: number; consumer_details: ConsumerRecord[] };
    assert.equal(q.consumers, 3);
    assert.deepEqual(q.consumer_details.map((c) => c.consumer_tag).sort(), all.map((c) => c.consumer_tag).sort());
    const totals = (await api("GET", "/api/overview")).json.object_totals as { consumers: number };
    assert.equal(totals.consumers, all.length);

    // A user who does not monitor sees only its own connections' consumers.
    const carols = (await api("GET", "/api/consumers", undefined, "carol:carol-pw")).json as ConsumerRecord[];
    assert.deepEqual(carols.map((c) => c.channel_details.user), ["carol"]);
    await ch.close();
  });
});
