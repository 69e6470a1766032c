// An MQTT subscriber as the management API lists it (issue 47, point 2), as RabbitMQ 3.10 does:
// a consumer per subscription queue on channel 1 of its connection, in /api/consumers, in its
// queue's consumer_details and in the channel's, with counts that agree with /api/overview; and
// the channel's message_stats, which RabbitMQ 3.10 counts on its MQTT channels (recorded against
// it on 1883: a QoS 1 subscriber's channel had deliver 4 and ack 4; a publisher's, publish and
// confirm for its QoS 1 PUBLISHes).
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { apiClient } from "../helpers/http-client.js";
import { connectMqtt, type TestMqttClient } from "../helpers/mqtt-client.js";
import { eventually } from "../helpers/wait.js";

interface ConsumerRecord {
  consumer_tag: string;
  queue: { name: string; vhost: string };
  channel_details: { name: string; connection_name: string; number: number };
  ack_required: boolean;
  prefetch_count: number;
}

describe("MQTT subscribers in the management API", () => {
  const f = useBrokerWithConnection({ mqttPort: 0 });
  const api = apiClient(() => f.broker.httpUrl);
  const clients: TestMqttClient[] = [];
  after(async () => {
    for (const c of clients) await c.client.endAsync(true).catch(() => {});
  });

  it("lists each subscription queue's consumer on the connection's channel, everywhere the API lists consumers", async () => {
    const m = await connectMqtt(`mqtt://127.0.0.1:${f.broker.mqttPort}`, { clientId: "lister" });
    clients.push(m);
    await m.client.subscribeAsync("a/b", { qos: 1 });
    await m.client.subscribeAsync("c/#", { qos: 0 });
    // An AMQP consumer beside it: the totals must count both protocols alike.
    const ch = await f.conn.createChannel();
    await ch.assertQueue("amqp-q");
    await ch.consume("amqp-q", () => undefined);

    const conn = ((await api("GET", "/api/connections")).json as { name: string; protocol: string; channels: number; client_properties: { client_id?: string } }[])
      .find((c) => c.client_properties.client_id === "lister")!;
    assert.equal(conn.channels, 1);
    const channels = (await api("GET", `/api/connections/${encodeURIComponent(conn.name)}/channels`)).json as { name: string; number: number; consumer_count: number; prefetch_count: number }[];
    assert.equal(channels.length, 1);
    assert.equal(channels[0]!.name, `${conn.name} (1)`);
    assert.equal(channels[0]!.consumer_count, 2);

    const all = (await api("GET", "/api/consumers")).json as ConsumerRecord[];
    const mine = all.filter((c) => c.channel_details.connection_name === conn.name).sort((a, b) => a.queue.name.localeCompare(b.queue.name));
    assert.deepEqual(mine.map((c) => [c.queue.name, c.ack_required, c.channel_details.name]), [
      ["mqtt-subscription-listerqos0", false, channels[0]!.name],
      ["mqtt-subscription-listerqos1", true, channels[0]!.name],
    ]);
    assert.notEqual(mine[0]!.consumer_tag, mine[1]!.consumer_tag, "tags are unique on the channel");
    assert.ok(mine[1]!.prefetch_count > 0);
    assert.equal(((await api("GET", "/api/consumers/%2F")).json as ConsumerRecord[]).length, all.length);

    const channel = (await api("GET", `/api/channels/${encodeURIComponent(channels[0]!.name)}`)).json as { consumer_details: ConsumerRecord[] };
    assert.equal(channel.consumer_details.length, 2);

    for (const qos of [0, 1]) {
      const q = (await api("GET", `/api/queues/%2F/mqtt-subscription-listerqos${qos}`)).json as { consumers: number; consumer_details: ConsumerRecord[]; owner_pid_details?: { name: string } };
      assert.equal(q.consumers, 1);
      assert.deepEqual(q.consumer_details.map((c) => c.channel_details.name), [channels[0]!.name]);
      // A clean session's queues are exclusive to the connection that owns them.
      assert.equal(q.owner_pid_details?.name, conn.name);
    }

    const totals = (await api("GET", "/api/overview")).json.object_totals as { consumers: number; channels: number };
    assert.equal(totals.consumers, all.length);
    assert.equal(totals.consumers, 3);
    assert.equal(totals.channels, ((await api("GET", "/api/channels")).json as unknown[]).length);
    await ch.close();
  });

  it("lists a session queue's consumer after UNSUBSCRIBE as long as the queue counts it", async () => {
    // RabbitMQ's MQTT plugin keeps consuming a session queue after its bindings go; the lists say so.
    const m = await connectMqtt(`mqtt://127.0.0.1:${f.broker.mqttPort}`, { clientId: "unsub" });
    clients.push(m);
    await m.client.subscribeAsync("x/y", { qos: 1 });
    await m.client.unsubscribeAsync("x/y");
    const all = (await api("GET", "/api/consumers")).json as ConsumerRecord[];
    const q = (await api("GET", "/api/queues/%2F/mqtt-subscription-unsubqos1")).json as { consumers: number };
    assert.equal(all.filter((c) => c.queue.name === "mqtt-subscription-unsubqos1").length, q.consumers);
  });

  it("counts each connection's messages on its channel: publish, confirm, deliver, ack", async () => {
    const url = `mqtt://127.0.0.1:${f.broker.mqttPort}`;
    const sub = await connectMqtt(url, { clientId: "counted-sub" });
    const pub = await connectMqtt(url, { clientId: "counted-pub" });
    clients.push(sub, pub);
    await sub.client.subscribeAsync("meter/#", { qos: 1 });
    for (let i = 0; i < 3; i++) await pub.client.publishAsync("meter/a", `reading ${i}`, { qos: 1 });
    await pub.client.publishAsync("meter/b", "best effort", { qos: 0 });
    await pub.client.publishAsync("nobody/listens", "lost", { qos: 1 });
    await sub.waitFor(4);

    const channelOf = async (clientId: string) => {
      const conn = ((await api("GET", "/api/connections")).json as { name: string; client_properties: { client_id?: string } }[]).find((c) => c.client_properties.client_id === clientId)!;
      return (await api("GET", `/api/channels/${encodeURIComponent(`${conn.name} (1)`)}`)).json as { message_stats: Record<string, number> };
    };
    // The subscriber's PUBACKs arrive after its client has the messages: wait for the last one.
    let subStats: Record<string, number> = {};
    await eventually(async () => ((subStats = (await channelOf("counted-sub")).message_stats).ack ?? 0) === 3, 5000, "three acks counted");
    // A QoS 0 PUBLISH reaches a QoS 1 subscription at QoS 0 (the lower of the two): no ack owed.
    assert.deepEqual([subStats["deliver"], subStats["deliver_no_ack"], subStats["ack"], subStats["redeliver"], subStats["publish"]], [3, 1, 3, 0, 0]);
    const pubStats = (await channelOf("counted-pub")).message_stats;
    assert.deepEqual([pubStats["publish"], pubStats["confirm"], pubStats["drop_unroutable"], pubStats["deliver"]], [5, 4, 1, 0]);
    assert.equal(typeof (pubStats as unknown as { publish_details: { rate: number } }).publish_details.rate, "number");
  });
});
