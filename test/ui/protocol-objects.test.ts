// Every protocol's objects on the pages an operator opens (issue 47, points 2, 3, 4 and 10), in
// real headless Chromium: an MQTT connection shows its channel and its subscriber as a consumer,
// and its exclusive session queue names that connection as owner; a native stream connection
// shows its publishers and consumers; a quorum queue shows its leader, online nodes and members;
// a queue deleted under its open page leaves "Not found" with no stale details or action forms.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import { Offset, type Client } from "rabbitmq-stream-js-client";
import type { TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { connectMqtt, type TestMqttClient } from "../helpers/mqtt-client.js";
import { eventually } from "../helpers/wait.js";
import { startStreamBroker, streamClient } from "../stream/stream-helpers.js";
import { useGuestPage } from "./guest-page.js";
import { go, textOf, waitText } from "./ui-session.js";

describe("web UI: every protocol's objects", () => {
  let b: TestBroker & { streamPort: number };
  let conn: ChannelModel;
  let native: Client;
  let mqtt: TestMqttClient;
  const api = apiClient(() => b.httpUrl);
  before(async () => {
    b = await startStreamBroker({ mqttPort: 0 });
    conn = await amqp.connect(b.amqpUrl);
    mqtt = await connectMqtt(`mqtt://127.0.0.1:${b.mqttPort}`, { clientId: "ui-sub" });
    await mqtt.client.subscribeAsync("sensors/#", { qos: 1 });
    native = await streamClient(b);
    await native.createStream({ stream: "ui.events", arguments: {} });
    const pub = await native.declarePublisher({ stream: "ui.events", publisherRef: "ui-writer" });
    await pub.send(Buffer.from("one"));
    await native.declareConsumer({ stream: "ui.events", offset: Offset.first() }, () => undefined);
  });
  after(async () => {
    await mqtt?.client.endAsync(true).catch(() => undefined);
    await native?.close().catch(() => undefined);
    await conn?.close().catch(() => undefined);
    await b?.close();
  });
  const ui = useGuestPage(() => b.httpUrl);

  const connectionNamed = async (protocol: string): Promise<string> => {
    const list = (await api("GET", "/api/connections")).json as { name: string; protocol: string }[];
    const c = list.find((x) => x.protocol.startsWith(protocol));
    assert.ok(c, `a ${protocol} connection in ${JSON.stringify(list.map((x) => x.protocol))}`);
    return c.name;
  };

  it("shows an MQTT connection's channel and its subscriber as a consumer, and the session queue's owner", async () => {
    const name = await connectionNamed("MQTT");
    await go(ui.w.page, `/connections/${encodeURIComponent(name)}`, "Connection");
    await waitText(ui.w.page, "table[aria-label=Channels]", `${name} (1)`.split(" -> ")[0]!);
    await waitText(ui.w.page, "table[aria-label=Consumers]", "mqtt-subscription-ui-subqos1");
    await ui.w.shot("protocol-mqtt-connection");

    await go(ui.w.page, "/queues/%2F/mqtt-subscription-ui-subqos1", "mqtt-subscription-ui-subqos1");
    await waitText(ui.w.page, "table[aria-label=Queue]", "Exclusive owner");
    const owner = (await ui.w.page.$$eval("table[aria-label=Queue] a", (as) => as.map((a) => (a.textContent ?? "").trim()))) as string[];
    assert.ok(owner.includes(name), `the owner links to ${name}: ${owner.join(", ")}`);
    await waitText(ui.w.page, "table[aria-label=Consumers]", `${name} (1)`);
    assert.deepEqual(ui.w.problems, []);
  });

  it("shows a native stream connection's publishers and consumers", async () => {
    // The client opens a connection of its own per publisher and per consumer: open each one's.
    const pubs0 = (await api("GET", "/api/stream/publishers")).json as { connection_details: { name: string } }[];
    const subs0 = (await api("GET", "/api/stream/consumers")).json as { connection_details: { name: string } }[];
    assert.equal(pubs0.length, 1);
    assert.equal(subs0.length, 1);
    await go(ui.w.page, `/connections/${encodeURIComponent(subs0[0]!.connection_details.name)}`, "Connection");
    await waitText(ui.w.page, "table[aria-label='Stream consumers']", "ui.events");
    const name = pubs0[0]!.connection_details.name;
    await go(ui.w.page, `/connections/${encodeURIComponent(name)}`, "Connection");
    await waitText(ui.w.page, "table[aria-label='Stream publishers']", "ui-writer");
    const pubs = await textOf(ui.w.page, "table[aria-label='Stream publishers'] tbody");
    assert.match(pubs, /ui\.events/);
    assert.equal(await ui.w.page.$("table[aria-label=Channels]"), null, "a stream connection has no channels");
    assert.match(name, /->/);
    await ui.w.shot("protocol-stream-connection");
    assert.deepEqual(ui.w.problems, []);
  });

  it("shows a quorum queue's leader, online nodes and members", async () => {
    const ch = await conn.createChannel();
    await ch.assertQueue("ui.quorum", { durable: true, arguments: { "x-queue-type": "quorum" } });
    const node = (await api("GET", "/api/queues/%2F/ui.quorum")).json.leader as string;
    assert.ok(node);
    await go(ui.w.page, "/queues/%2F/ui.quorum", "ui.quorum");
    await waitText(ui.w.page, "table[aria-label=Queue]", "Leader");
    const kv = await textOf(ui.w.page, "table[aria-label=Queue]");
    assert.ok(kv.includes(`Leader${node}`) && kv.includes(`Online${node}`) && kv.includes(`Members${node}`), kv);
    // An empty queue's count axis steps in whole messages (point 11).
    const chart = "[aria-label='Queued messages chart'][data-yticks]";
    await ui.w.page.waitForSelector(chart, { timeout: 10_000 });
    const yticks = JSON.parse((await ui.w.page.$eval(chart, (e) => (e as unknown as { dataset: { yticks: string } }).dataset.yticks)) as string) as string[];
    assert.ok(yticks.length >= 2 && yticks.every((t) => /^\d+$/.test(t)), `whole-number ticks: ${yticks.join(" ")}`);
    await ch.close();
    assert.deepEqual(ui.w.problems, []);
  });

  it("leaves only 'Not found' and the way back when the queue is deleted under its open page", async () => {
    const ch = await conn.createChannel();
    await ch.assertQueue("ui.doomed");
    await go(ui.w.page, "/queues/%2F/ui.doomed", "ui.doomed");
    await waitText(ui.w.page, "table[aria-label=Queue]", "classic");
    await ch.deleteQueue("ui.doomed");
    await ch.close();
    await waitText(ui.w.page, "[role=alert]", "Not found", 20_000);
    await eventually(async () => (await ui.w.page.$("table[aria-label=Queue]")) === null, 5000, "stale details gone");
    assert.equal(await ui.w.page.$("details.section"), null, "no action sections for a deleted queue");
    await waitText(ui.w.page, "main a", "Back to queues");
    // The refresh's 404 is the point of the test; nothing else may fail.
    assert.deepEqual(ui.w.problems.filter((p) => !p.includes("404")), []);
  });
});
