// Memory and disk alarms hold MQTT publishers as they hold AMQP ones: the PUBLISH that meets the
// alarm is handled, nothing after it is read until the alarm clears, and nothing is lost.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { connectMqtt, sleep, waitUntil } from "../helpers/mqtt-client.js";

describe("MQTT publishers and resource alarms", () => {
  let broker: TestBroker;
  before(async () => {
    broker = await startTestBroker({ mqttPort: 0 });
  });
  after(() => broker.close());

  it("stops reading a publisher while the memory alarm is on, and reads it again when it clears", async () => {
    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createChannel();
    await ch.assertQueue("mqtt-alarm", { durable: false });
    await ch.bindQueue("mqtt-alarm", "amq.topic", "alarm.#");
    const pub = await connectMqtt(`mqtt://127.0.0.1:${broker.mqttPort}`, { clientId: "alarmed" });
    const count = async (): Promise<number> => (await ch.checkQueue("mqtt-alarm")).messageCount;
    try {
      await pub.client.publishAsync("alarm/a", "before", { qos: 0 });
      await waitUntil(() => broker.broker.vhost("/").queues.get("mqtt-alarm")!.messageCount === 1);
      broker.alarms.setLimits({ memHighWatermark: 1e-9 });
      pub.client.publish("alarm/a", "meets the alarm", { qos: 0 });
      await waitUntil(() => broker.broker.connections.list().some((c) => c.info().state === "blocked"));
      pub.client.publish("alarm/a", "held", { qos: 0 });
      await sleep(200);
      assert.equal(await count(), 2, "the publish after the blocking one is not read");
      broker.alarms.setLimits({ memHighWatermark: 0.99 });
      await waitUntil(() => broker.broker.vhost("/").queues.get("mqtt-alarm")!.messageCount === 3);
      assert.equal(broker.broker.connections.list().find((c) => c.info().clientProperties["client_id"] === "alarmed")?.info().state, "running");
    } finally {
      broker.alarms.setLimits({ memHighWatermark: 0.99 });
      await pub.client.endAsync(true);
      await conn.close();
    }
  });
});
