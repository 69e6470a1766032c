// A spread cluster (`--cluster-mode spread`): get, purge and delete of a queue homed on another
// node from every surface of the node a client is connected to — the management API (get,
// purge, delete with if-empty / if-unused, the same statuses and texts as for a local queue),
// coneyctl, MQTT (a clean start deletes a session queue homed elsewhere; a CONNECT takes over its
// client id connected through another node), STOMP (a durable
// UNSUBSCRIBE deletes its queue on its home before the receipt) and AMQP 1.0's /management node.
// Three real nodes on a real etcd; amqplib, mqtt.js, a raw STOMP client and rhea.
import { describe } from "node:test";
import assert from "node:assert/strict";
import { spreadCluster } from "./spread-fixture.js";
import { run } from "../cli/run-coneyctl.js";
import { connectMqtt, type TestMqttClient } from "../helpers/mqtt-client.js";
import { StompWire } from "../helpers/stomp-wire.js";
import { close as closeAmqp1, connect as connectAmqp1 } from "../helpers/rhea-client.js";
import { openManagement } from "../helpers/amqp1-management.js";
import { eventually, withTimeout } from "../helpers/wait.js";

describe("a spread cluster: get, purge and delete of another node's queue from every surface", () => {
  const sc = spreadCluster();

  /** Declares durable `name` through node `home` (so homed there) and publishes `bodies` with confirms. */
  async function fill(home: number, name: string, bodies: string[]): Promise<void> {
    const ch = await (await sc.connect(home)).createConfirmChannel();
    await ch.assertQueue(name, { durable: true });
    for (const b of bodies) ch.sendToQueue(name, Buffer.from(b), { persistent: true });
    await ch.waitForConfirms();
    await ch.close();
    await sc.seenEverywhere(name, 200);
    const q = (await sc.api(0, "GET", `/api/queues/%2F/${name}`)).json as { node: string };
    assert.equal(q.node, sc.node(home).name, `${name} homed on node${home}`);
  }
  const countOn = async (i: number, name: string): Promise<number> => ((await sc.api(i, "GET", `/api/queues/%2F/${name}`)).json as { messages: number }).messages;

  sc.it("the API's get, purge and delete answer for another node's queue as for a local one", async () => {
    for (const [via, home] of [[0, 0], [0, 1], [2, 1]] as const) {
      const q = `ops-${via}-${home}`;
      await fill(home, q, ["m1", "m2", "m3", "m4"]);
      const peek = await sc.api(via, "POST", `/api/queues/%2F/${q}/get`, { count: 2, ackmode: "ack_requeue_true", encoding: "auto" });
      assert.equal(peek.status, 200, `node${via} get ${q}: ${peek.text}`);
      assert.deepEqual((peek.json as Array<{ payload: string; message_count: number }>).map((m) => [m.payload, m.message_count]), [["m1", 3], ["m2", 2]]);
      const take = await sc.api(via, "POST", `/api/queues/%2F/${q}/get`, { count: 1, ackmode: "ack_requeue_false", encoding: "auto" });
      assert.equal((take.json as Array<{ payload: string }>)[0]!.payload, "m1");
      await eventually(async () => (await countOn(via, q)) === 3, 5000, `${q} holds 3 after the take`);
      const refused = await sc.api(via, "DELETE", `/api/queues/%2F/${q}?if-empty=true`);
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.text, /not empty/);
      const purged = await sc.api(via, "DELETE", `/api/queues/%2F/${q}/contents`);
      assert.equal(purged.status, 204, purged.text);
      assert.equal(await countOn(home, q), 0, "purged on its home");
      const deleted = await sc.api(via, "DELETE", `/api/queues/%2F/${q}?if-empty=true&if-unused=true`);
      assert.equal(deleted.status, 204, deleted.text);
      assert.equal((await sc.api(home, "GET", `/api/queues/%2F/${q}`)).status, 404, "deleted on its home before the answer");
      await sc.seenEverywhere(q, 404);
      assert.equal((await sc.api(via, "DELETE", `/api/queues/%2F/${q}`)).status, 404);
    }
  });

  sc.it("delete if-unused refuses another node's queue while it has a consumer (on a third node)", async () => {
    await fill(1, "ops-unused", []);
    const ch = await (await sc.connect(2)).createChannel();
    const { consumerTag } = await ch.consume("ops-unused", () => {});
    await eventually(async () => ((await sc.api(0, "GET", "/api/queues/%2F/ops-unused")).json as { consumers: number }).consumers === 1, 5000, "the consumer counted on node0");
    const refused = await sc.api(0, "DELETE", "/api/queues/%2F/ops-unused?if-unused=true");
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.text, /in use/);
    await ch.cancel(consumerTag);
    await ch.close();
    const deleted = await sc.api(0, "DELETE", "/api/queues/%2F/ops-unused?if-unused=true");
    assert.equal(deleted.status, 204, deleted.text);
    await sc.seenEverywhere("ops-unused", 404);
  });

  sc.it("coneyctl purge_queue and delete_queue through one node reach a queue homed on another", async () => {
    await fill(2, "ops-ctl", ["c1", "c2"]);
    const purged = await run(["--port", String(sc.node(0).httpPort), "purge_queue", "ops-ctl"]);
    assert.equal(purged.code, 0, purged.stderr);
    assert.equal(await countOn(2, "ops-ctl"), 0);
    const deleted = await run(["--port", String(sc.node(0).httpPort), "delete_queue", "ops-ctl"]);
    assert.equal(deleted.code, 0, deleted.stderr);
    await sc.seenEverywhere("ops-ctl", 404);
  });

  sc.it("MQTT: a clean start through one node deletes the session queue homed on another", async () => {
    const url = (i: number): string => `mqtt://127.0.0.1:${sc.node(i).mqttPort}`;
    const end = (c: TestMqttClient): Promise<unknown> => c.client.endAsync(true);
    const queue = "mqtt-subscription-spread-persistqos1";
    const first = await connectMqtt(url(1), { clientId: "spread-persist", clean: false });
    sc.onClose(() => end(first));
    await first.client.subscribeAsync("spread/persist", { qos: 1 });
    await end(first);
    await sc.seenEverywhere(queue, 200);
    assert.equal(((await sc.api(0, "GET", `/api/queues/%2F/${queue}`)).json as { node: string }).node, sc.node(1).name);
    const pub = await connectMqtt(url(2), { clientId: "spread-persist-pub" });
    sc.onClose(() => end(pub));
    for (const b of ["a", "b"]) await pub.client.publishAsync("spread/persist", b, { qos: 1 });
    await eventually(async () => (await countOn(1, queue)) === 2, 5000, "2 messages kept in the session queue");
    // Resumed through another node: the backlog crosses the link.
    const again = await connectMqtt(url(0), { clientId: "spread-persist", clean: false });
    sc.onClose(() => end(again));
    assert.equal(again.connack?.sessionPresent, true);
    assert.deepEqual((await again.waitFor(2, 10_000)).map((m) => m.payload.toString()), ["a", "b"]);
    await end(again);
    const clean = await connectMqtt(url(0), { clientId: "spread-persist", clean: true });
    sc.onClose(() => end(clean));
    assert.equal(clean.connack?.sessionPresent, false);
    await sc.seenEverywhere(queue, 404);
    await end(clean);
    await end(pub);
  });

  sc.it("MQTT: a CONNECT through one node takes over the client id connected through another, whose clean session it then replaces", async () => {
    const url = (i: number): string => `mqtt://127.0.0.1:${sc.node(i).mqttPort}`;
    const end = (c: TestMqttClient): Promise<unknown> => c.client.endAsync(true);
    for (const [from, to] of [[1, 0], [0, 2]] as const) {
      const clientId = `spread-takeover-${from}-${to}`;
      const old = await connectMqtt(url(from), { clientId, clean: true });
      sc.onClose(() => end(old));
      await old.client.subscribeAsync(`spread/takeover/${from}`, { qos: 1 });
      const closed = new Promise<void>((resolve) => old.client.once("close", () => resolve()));
      // MQTT 3.1.1 §3.1.4-2: the server disconnects the existing client, wherever it is connected.
      const fresh = await connectMqtt(url(to), { clientId, clean: true });
      sc.onClose(() => end(fresh));
      assert.equal(fresh.connack?.returnCode, 0, `the CONNECT through node${to} is accepted`);
      assert.equal(fresh.connack?.sessionPresent, false);
      await withTimeout(closed, 5000, `the old connection on node${from} closed by the takeover`);
      await fresh.client.subscribeAsync(`spread/takeover/${from}`, { qos: 1 });
      const pub = await connectMqtt(url(2), { clientId: `${clientId}-pub` });
      sc.onClose(() => end(pub));
      await pub.client.publishAsync(`spread/takeover/${from}`, "after", { qos: 1 });
      assert.deepEqual((await fresh.waitFor(1, 10_000)).map((m) => m.payload.toString()), ["after"]);
      await end(pub);
      await end(fresh);
    }
  });

  sc.it("STOMP: UNSUBSCRIBE durable:true through one node deletes the subscription's queue on its home before the receipt", async () => {
    const queue = "stomp-subscription-spread-dur";
    const s1 = await StompWire.login(sc.node(1).stompPort!, { "client-id": "spread-dur" });
    sc.onClose(() => s1.close());
    s1.send("SUBSCRIBE", { id: "1", destination: "/topic/spread.dur", durable: "true", "auto-delete": "false", "x-queue-name": queue, receipt: "s" });
    await s1.nextOf("RECEIPT", 10_000);
    s1.close();
    await sc.seenEverywhere(queue, 200);
    assert.equal(((await sc.api(0, "GET", `/api/queues/%2F/${queue}`)).json as { node: string }).node, sc.node(1).name);
    const s0 = await StompWire.login(sc.node(0).stompPort!, { "client-id": "spread-dur" });
    sc.onClose(() => s0.close());
    s0.send("SUBSCRIBE", { id: "1", destination: "/topic/spread.dur", durable: "true", "auto-delete": "false", "x-queue-name": queue, receipt: "s" });
    await s0.nextOf("RECEIPT", 10_000);
    s0.send("UNSUBSCRIBE", { id: "1", durable: "true", receipt: "u" });
    await s0.nextOf("RECEIPT", 10_000);
    assert.equal((await sc.api(1, "GET", `/api/queues/%2F/${queue}`)).status, 404, "deleted on its home before the receipt");
    s0.close();
    await sc.seenEverywhere(queue, 404);
  });

  sc.it("AMQP 1.0 /management: GET counts, DELETE …/messages purges and DELETE deletes another node's queue", async () => {
    await fill(1, "ops-amqp1", ["x", "y", "z"]);
    const c = await connectAmqp1(sc.node(0).amqpPort, { hostname: "vhost:/" });
    sc.onClose(() => closeAmqp1(c));
    const m = await openManagement(c);
    const got = await m.request("GET", "/queues/ops-amqp1");
    assert.equal(got.status, "200");
    assert.equal(Number((got.body as Record<string, unknown>)["message_count"]), 3);
    const purged = await m.request("DELETE", "/queues/ops-amqp1/messages");
    assert.equal(purged.status, "200");
    assert.equal(Number((purged.body as Record<string, unknown>)["message_count"]), 3);
    assert.equal(await countOn(1, "ops-amqp1"), 0);
    const deleted = await m.request("DELETE", "/queues/ops-amqp1");
    assert.equal(deleted.status, "200");
    assert.equal((await sc.api(1, "GET", "/api/queues/%2F/ops-amqp1")).status, 404, "deleted on its home");
    await sc.seenEverywhere("ops-amqp1", 404);
    await closeAmqp1(c);
  });
});
