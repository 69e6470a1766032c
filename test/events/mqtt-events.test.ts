// MQTT reaches the same broker methods as AMQP, so its clients produce the same events on
// amq.rabbitmq.event: an mqtt.js connection, its subscription (the session queue and its binding
// to amq.topic, and its consumer) and its disconnect, observed by an amqplib consumer.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { connectMqtt } from "../helpers/mqtt-client.js";
import { EventLog } from "./event-log.js";

describe("amq.rabbitmq.event with MQTT clients", () => {
  let broker: TestBroker;
  let conn: ChannelModel;
  let events: EventLog;
  before(async () => {
    broker = await startTestBroker({ mqttPort: 0 });
    conn = await amqp.connect(broker.amqpUrl);
    events = await EventLog.bind(await conn.createChannel());
  });
  after(async () => {
    await conn.close();
    await broker.close();
  });

  it("announces an MQTT client's connection, subscription, consumer and disconnect", async () => {
    const m = await connectMqtt(`mqtt://127.0.0.1:${broker.mqttPort}`, { clientId: "ev-mqtt" });
    await m.client.subscribeAsync("ev/+/temp", { qos: 1 });
    await m.client.endAsync();
    const created = await events.next("connection.created", { user: "guest" });
    assert.match(String(created.headers["protocol"]), /MQTT/);
    await events.next("user.authentication.success", { name: "guest", protocol: "mqtt" });
    const q = await events.next("queue.created", { vhost: "/" });
    assert.match(String(q.headers["name"]), /ev-mqtt/);
    const b = await events.next("binding.created", { source_name: "amq.topic", destination_name: String(q.headers["name"]) });
    assert.equal(b.headers["routing_key"], "ev.*.temp");
    await events.next("consumer.created", { queue: String(q.headers["name"]) });
    await events.next("connection.closed", { name: String(created.headers["name"]) });
  });
});
