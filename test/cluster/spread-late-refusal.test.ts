// A spread cluster (`--cluster-mode spread`): a declare answered while its node was cut from etcd,
// that then LOSES in etcd's order to another node's declare of the same name (docs/CLUSTERING.md,
// "Concurrent changes: etcd's order on every node", "A declare answered ok that loses later").
// node0 reaches etcd through a proxy the test cuts: its clients' declares and subscriptions are
// answered once the barrier gives up (2 s), node1 declares the same names with other arguments and
// its claims win; etcd is given back to node0, whose copies lose. Each client is then told as its
// protocol expects, as RabbitMQ tells a client whose queue went:
// - AMQP 0-9-1 (amqplib): the declaring channel is closed with 406 PRECONDITION_FAILED
//   "inequivalent arg 'x-max-length' …" — the refusal the declare would have had;
// - MQTT (mqtt.js, persistent session): the connection closes (RabbitMQ's MQTT plugin stops a
//   connection whose consuming queue went);
// - AMQP 1.0 (rhea): the receiving link is detached with amqp:resource-deleted;
// - STOMP (@stomp/stompjs over Web STOMP): ERROR "Server cancelled subscription" with the
//   subscription header, the connection kept open (RabbitMQ 3.10.8, recorded).
// Every node then lists node1's queues (its arguments), homed on node1.
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { Channel } from "amqplib";
import { connect as connectMqtt, type MqttClient } from "mqtt";
import { Client as StompClient, type IFrame } from "@stomp/stompjs";
import WebSocket from "ws";
import type { Receiver } from "rhea";
import { spreadCluster } from "./spread-fixture.js";
import { eventually, withTimeout } from "../helpers/wait.js";
import { close as closeAmqp1, connect as connectAmqp1, errorOf } from "../helpers/rhea-client.js";

const WAIT_MS = 20_000;

describe("a spread cluster: a declare answered while cut from etcd that loses afterwards is told to its client", () => {
  const sc = spreadCluster({ size: 2, leaseTtl: 20, viaProxy: [0], extraArgs: ["--web-stomp-port", "0"] });

  /** node0's Web STOMP port, as its management API lists it. */
  const webStompPort = async (): Promise<number> => {
    let port = 0;
    await eventually(async () => {
      const r = await sc.api(0, "GET", "/api/overview");
      const listeners = ((r.json ?? {}) as { listeners?: Array<{ node: string; protocol: string; port: number }> }).listeners ?? [];
      port = listeners.find((l) => l.node === sc.node(0).name && l.protocol === "http/web-stomp")?.port ?? 0;
      return port > 0;
    }, 10_000, "node0's Web STOMP port");
    return port;
  };

  sc.it("AMQP 0-9-1 channel closed with the 406, MQTT disconnected, AMQP 1.0 link detached (resource-deleted), STOMP ERROR on the subscription", async () => {
    const names = { amqp: "late-amqp", mqtt: "mqtt-subscription-late-mqttqos1", amqp1: "late-amqp1", stomp: "late-stomp" };
    // Clients of node0 connected before the cut.
    const declarer: Channel = await (await sc.connect(0)).createChannel();
    const channelError = new Promise<Error>((resolve) => declarer.once("error", resolve));
    const mqtt: MqttClient = connectMqtt(`mqtt://127.0.0.1:${sc.node(0).mqttPort}`, { clientId: "late-mqtt", clean: false, username: "guest", password: "guest", protocolVersion: 4, reconnectPeriod: 0 });
    sc.onClose(() => mqtt.endAsync(true));
    mqtt.on("error", () => {});
    await withTimeout(new Promise((r) => mqtt.once("connect", r)), WAIT_MS, "MQTT connected");
    const mqttClosed = new Promise<void>((r) => mqtt.once("close", () => r()));
    const amqp1 = await connectAmqp1(sc.node(0).amqpPort);
    sc.onClose(() => closeAmqp1(amqp1));
    const port = await webStompPort();
    const stompErrors: IFrame[] = [];
    let stompError!: Promise<IFrame>;
    const stomp = await new Promise<StompClient>((resolve) => {
      let told!: (f: IFrame) => void;
      stompError = new Promise<IFrame>((r) => (told = r));
      const c = new StompClient({
        webSocketFactory: () => new WebSocket(`ws://127.0.0.1:${port}/ws`, ["v12.stomp"]),
        connectHeaders: { login: "guest", passcode: "guest", host: "/" },
        reconnectDelay: 0,
        heartbeatIncoming: 0,
        heartbeatOutgoing: 0,
        onConnect: () => resolve(c),
        onStompError: (f) => {
          stompErrors.push(f);
          told(f);
        },
      });
      c.activate();
    });
    sc.onClose(() => stomp.deactivate());

    sc.proxy.cutOff();
    // node0's clients declare and subscribe, cut from etcd: answered once the barrier gives up.
    const answered = Promise.all([
      declarer.assertQueue(names.amqp, { durable: true, arguments: { "x-max-length": 5 } }),
      mqtt.subscribeAsync("late/t", { qos: 1 }),
      new Promise<Receiver>((resolve, reject) => {
        const r = amqp1.open_receiver({ source: { address: `/queue/${names.amqp1}` }, autoaccept: false, credit_window: 10 });
        r.once("receiver_open", () => resolve(r));
        r.once("receiver_error", () => reject(new Error(`attach refused: ${JSON.stringify(errorOf(r.error))}`)));
      }),
      new Promise<void>((resolve) => {
        stomp.watchForReceipt("sub-late", () => resolve());
        stomp.subscribe(`/queue/${names.stomp}`, () => {}, { id: "s-late", receipt: "sub-late" });
      }),
    ]);
    // node1 declares the same names with other arguments: its claims are the first in etcd.
    // (Each is answered once node0 applied it or after 3 s: node0 is cut from the watch too. In parallel, to keep the cut short.)
    const node1 = await sc.connect(1);
    await Promise.all(Object.values(names).map(async (q) => (await node1.createChannel()).assertQueue(q, { durable: true, arguments: { "x-max-length": 7 } })));
    const [, , receiver] = await withTimeout(answered, WAIT_MS, "node0's clients answered while cut from etcd");
    const detached = new Promise<unknown>((resolve) => receiver.once("receiver_error", () => resolve(receiver.error)));
    assert.deepEqual(stompErrors.map((f) => `${f.headers["message"]}: ${f.body}`), [], "no STOMP ERROR before node0 hears etcd again");

    sc.proxy.restore();
    // AMQP 0-9-1: the channel that heard declare-ok is closed with the refusal its declare lost with.
    const err = await withTimeout(channelError, WAIT_MS, "the declaring channel closed");
    assert.match(err.message, /406 \(PRECONDITION-FAILED\)/);
    assert.match(err.message, /inequivalent arg 'x-max-length' for queue 'late-amqp' in vhost '\/': received the value '5' of type 'signedint' but current is the value '7' of type 'signedint'/);
    // MQTT: the connection whose session queue went is closed.
    await withTimeout(mqttClosed, WAIT_MS, "the MQTT connection closed");
    // AMQP 1.0: the receiving link is detached with amqp:resource-deleted.
    const linkErr = errorOf(await withTimeout(detached, WAIT_MS, "the AMQP 1.0 link detached"));
    assert.equal(linkErr.condition, "amqp:resource-deleted");
    // STOMP: RabbitMQ's ERROR for a subscription the server cancelled; the connection stays open.
    const f = await withTimeout(stompError, WAIT_MS, "the STOMP ERROR frame");
    assert.equal(f.headers["message"], "Server cancelled subscription");
    assert.equal(f.headers["subscription"], "s-late");
    assert.equal(f.body, "The server has canceled a subscription.\nNo more messages will be delivered for \"id='s-late'\".\n");
    await withTimeout(new Promise<void>((resolve) => {
      stomp.watchForReceipt("still-open", () => resolve());
      stomp.publish({ destination: "/topic/late-check", body: "after", headers: { receipt: "still-open" } });
    }), WAIT_MS, "a RECEIPT after the ERROR: the STOMP connection is open");

    // Every node lists node1's queues, with node1's arguments.
    for (const i of [0, 1]) {
      for (const q of Object.values(names)) {
        await eventually(async () => {
          const r = await sc.api(i, "GET", `/api/queues/%2F/${encodeURIComponent(q)}`);
          const body = r.json as { node?: string; arguments?: Record<string, unknown> } | null;
          return r.status === 200 && body?.node === sc.node(1).name && body.arguments?.["x-max-length"] === 7;
        }, WAIT_MS, `${q} on node${i}: node1's queue`);
      }
    }
    // The refusals were logged once each on node0, marked as told after an answer.
    assert.ok(sc.node(0).log.includes('"answeredBefore":true'), "node0 logged the late refusal");
  });
});
