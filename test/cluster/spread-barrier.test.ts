// A spread cluster (`--cluster-mode spread`): MQTT's SUBACK and AMQP 1.0's attach (a terminus that
// declares or binds a queue) are answered once every node applied the change (the definitions
// barrier AMQP 0-9-1's declare-ok and bind-ok wait for; docs/CLUSTERING.md, "Answered once everyone
// knows"), so a message published on another node right after the answer reaches what the client
// made. Three real nodes on a real etcd; mqtt.js, rhea and amqplib. Each case is tried several
// times in a row with nothing in between: without the barrier the publish on the other node races
// the etcd log and is dropped (unroutable) or returned.
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { Message } from "amqplib";
import type { Receiver, Sender } from "rhea";
import { spreadCluster } from "./spread-fixture.js";
import { connectMqtt, type TestMqttClient } from "../helpers/mqtt-client.js";
import { bodyOf, close as closeAmqp1, connect as connectAmqp1, openSender } from "../helpers/rhea-client.js";
import { collector, withTimeout } from "../helpers/wait.js";

const TRIES = 8;

describe("a spread cluster: MQTT SUBACK and AMQP 1.0 attach wait for the definitions barrier", () => {
  const sc = spreadCluster();

  sc.it("MQTT: a message published through node1 right after SUBACK on node0 reaches the subscriber, every time", async () => {
    const url = (i: number): string => `mqtt://127.0.0.1:${sc.node(i).mqttPort}`;
    const end = (c: TestMqttClient): Promise<unknown> => c.client.endAsync(true);
    const pub = await connectMqtt(url(1), { clientId: "barrier-pub" });
    sc.onClose(() => end(pub));
    for (let i = 0; i < TRIES; i++) {
      // A new client each time: its clean session's queue and its binding are new to node1.
      const sub = await connectMqtt(url(0), { clientId: `barrier-sub-${i}` });
      sc.onClose(() => end(sub));
      await sub.client.subscribeAsync(`barrier/${i}`, { qos: 1 });
      await pub.client.publishAsync(`barrier/${i}`, `m${i}`, { qos: 1 });
      const [got] = await sub.waitFor(1, 5000).catch((err: Error) => assert.fail(`try ${i}: the message published through node1 right after SUBACK was lost (${err.message})`));
      assert.equal(got!.payload.toString(), `m${i}`);
      await end(sub);
    }
  });

  sc.it("AMQP 1.0: a receiver's /queue/<q> attach on node0, then a mandatory publish through node1: delivered, never returned", async () => {
    const a = await connectAmqp1(sc.node(0).amqpPort);
    sc.onClose(() => closeAmqp1(a));
    const ch = await (await sc.connect(1)).createConfirmChannel();
    const returned: Message[] = [];
    ch.on("return", (m: Message) => returned.push(m));
    for (let i = 0; i < TRIES; i++) {
      const queue = `barrier-recv-${i}`;
      const got = collector<string>(1);
      const receiver: Receiver = a.open_receiver({ source: { address: `/queue/${queue}` }, autoaccept: true });
      receiver.on("message", (ctx) => got.push(bodyOf(ctx.message!).toString()));
      await withTimeout(new Promise<void>((resolve) => receiver.once("receiver_open", () => resolve())), 5000, `attach of ${queue}`);
      ch.publish("", queue, Buffer.from(`r${i}`), { mandatory: true });
      await withTimeout(ch.waitForConfirms(), 5000, "the confirm");
      assert.deepEqual(returned.map((m) => m.fields.routingKey), [], `try ${i}: node1 did not know ${queue} after its attach`);
      assert.deepEqual(await withTimeout(got.done, 5000, `the message to ${queue}`), [`r${i}`]);
    }
  });

  sc.it("AMQP 1.0: a sender's /queue/<q> attach on node0 declares it; a mandatory publish through node2 right after is routed to it", async () => {
    const a = await connectAmqp1(sc.node(0).amqpPort);
    sc.onClose(() => closeAmqp1(a));
    const ch = await (await sc.connect(2)).createConfirmChannel();
    const returned: Message[] = [];
    ch.on("return", (m: Message) => returned.push(m));
    for (let i = 0; i < TRIES; i++) {
      const queue = `barrier-send-${i}`;
      const sender: Sender = await openSender(a, `/queue/${queue}`);
      ch.publish("", queue, Buffer.from(`s${i}`), { mandatory: true });
      await withTimeout(ch.waitForConfirms(), 5000, "the confirm");
      assert.deepEqual(returned.map((m) => m.fields.routingKey), [], `try ${i}: node2 did not know ${queue} after its attach`);
      sender.close();
    }
    const q = (await sc.api(2, "GET", "/api/queues/%2F/barrier-send-0")).json as { node: string; messages?: number };
    assert.equal(q.node, sc.node(0).name, "homed on the attaching client's node");
  });
});
