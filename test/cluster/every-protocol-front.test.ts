// Followers serve every protocol's port (docs/CLUSTERING.md, "Clients"): MQTT (mqtt.js), Web MQTT
// (mqtt.js over ws), STOMP (raw frames over TCP), Web STOMP (@stomp/stompjs over ws) and AMQP 1.0
// (rhea, on the AMQP port) connected to either follower publish and consume through the leader,
// which lists those connections; after kill -9 of the leader the same clients reconnect to the
// same follower addresses (one of the two followers is then the new leader) and work again.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect as connectMqttClient, type MqttClient } from "mqtt";
import { Client as StompClient, type IMessage } from "@stomp/stompjs";
import WebSocket from "ws";
import { suiteCluster, type NodeInfo, type TestCluster } from "./cluster-fixture.js";
import { withTimeout } from "../helpers/wait.js";
import { StompWire } from "../helpers/stomp-wire.js";
import { bodyOf, close as closeAmqp1, connect as connectAmqp1, data, openSender, receive, sendAll } from "../helpers/rhea-client.js";
import type { ClientPorts } from "../../src/cluster/client-ports.js";

const GUEST = { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` };
/** From a leader's death to a new one serving: a lease TTL (3 s) plus the election and the broker's boot. */
const FAILOVER_MS = 40_000;

async function portsOf(cluster: TestCluster, n: NodeInfo): Promise<ClientPorts> {
  const info = JSON.parse((await cluster.etcdKey(`members/${n.name}`)) ?? "{}") as { ports?: ClientPorts };
  return info.ports ?? {};
}

function port(ports: ClientPorts, kind: keyof ClientPorts): number {
  const p = ports[kind];
  if (p === undefined) throw new Error(`no ${kind} port registered`);
  return p;
}

/** Runs `round` until it succeeds (a client that reaches a node while it has no leader yet is closed, and tries again). */
async function retrying(what: string, round: () => Promise<void>, ms = FAILOVER_MS): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await round();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what}: still failing after ${ms} ms: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** A client that keeps one connection and reconnects by itself (mqtt.js, @stomp/stompjs). */
interface LastingClient {
  /** Subscribes, publishes `tag` and resolves once it came back, on the current (or next) connection. */
  round(tag: string): Promise<void>;
  /** Connections made so far. */
  readonly connects: number;
  end(): Promise<void>;
}

function mqttClient(url: string, clientId: string): LastingClient {
  const c: MqttClient = connectMqttClient(url, { clientId, username: "guest", password: "guest", protocolVersion: 4, reconnectPeriod: 200, connectTimeout: 5000 });
  let connects = 0;
  c.on("connect", () => void connects++);
  c.on("error", () => undefined);
  const topic = `front/${clientId}`;
  return {
    get connects() {
      return connects;
    },
    async round(tag) {
      if (!c.connected) await withTimeout(new Promise((r) => c.once("connect", r)), FAILOVER_MS, `${clientId} to connect`);
      const got = new Promise<string>((resolve) => {
        const on = (t: string, payload: Buffer): void => {
          if (t !== topic || payload.toString() !== tag) return;
          c.off("message", on);
          resolve(tag);
        };
        c.on("message", on);
      });
      await c.subscribeAsync(topic, { qos: 1 });
      await c.publishAsync(topic, tag, { qos: 1 });
      assert.equal(await withTimeout(got, 10_000, `${clientId} to receive ${tag}`), tag);
    },
    end: () => c.endAsync(true),
  };
}

function webStompClient(url: string, name: string): LastingClient {
  let connects = 0;
  let connected: () => void = () => undefined;
  const c = new StompClient({
    webSocketFactory: () => new WebSocket(url, ["v12.stomp"]),
    connectHeaders: { login: "guest", passcode: "guest", host: "/" },
    reconnectDelay: 200,
    heartbeatIncoming: 0,
    heartbeatOutgoing: 0,
    onConnect: () => {
      connects++;
      connected();
    },
  });
  c.activate();
  const destination = `/queue/front-${name}`;
  return {
    get connects() {
      return connects;
    },
    async round(tag) {
      if (!c.connected) await withTimeout(new Promise<void>((r) => (connected = r)), FAILOVER_MS, `${name} to connect`);
      const got = new Promise<string>((resolve) => {
        const sub = c.subscribe(destination, (m: IMessage) => {
          if (m.body !== tag) return;
          sub.unsubscribe();
          resolve(m.body);
        });
      });
      c.publish({ destination, body: tag });
      assert.equal(await withTimeout(got, 10_000, `${name} to receive ${tag}`), tag);
    },
    end: () => c.deactivate(),
  };
}

/** STOMP over TCP with raw frames: a connection per round (the test reconnects). */
async function stompRound(stompPort: number, name: string, tag: string): Promise<void> {
  const w = await StompWire.login(stompPort);
  try {
    w.send("SUBSCRIBE", { id: "s", destination: `/queue/front-${name}`, receipt: "r" });
    await w.nextOf("RECEIPT", 10_000);
    w.send("SEND", { destination: `/queue/front-${name}` }, tag);
    const f = await w.nextOf("MESSAGE", 10_000);
    assert.equal(f.body.toString(), tag);
  } finally {
    w.close();
  }
}

/** AMQP 1.0 on the AMQP port: a connection per round; the queue is declared through the same node's HTTP port. */
async function amqp1Round(amqpPort: number, httpPort: number, name: string, tag: string): Promise<void> {
  const queue = `front-amqp1-${name}-${tag}`;
  const put = await fetch(`http://127.0.0.1:${httpPort}/api/queues/%2F/${queue}`, { method: "PUT", headers: { ...GUEST, "content-type": "application/json" }, body: JSON.stringify({ durable: true }), signal: AbortSignal.timeout(5000) });
  if (put.status !== 201 && put.status !== 204) throw new Error(`declaring ${queue}: ${put.status}`);
  const c = await connectAmqp1(amqpPort);
  try {
    const { messages } = receive(c, `/queues/${queue}`, 1, { autoaccept: true });
    const s = await openSender(c, `/queues/${queue}`);
    assert.deepEqual((await sendAll(s, [{ body: data(tag) }])).map((o) => o.outcome), ["accepted"]);
    const [m] = await messages;
    assert.equal(bodyOf(m!.message).toString(), tag);
  } finally {
    await closeAmqp1(c);
  }
}

/** Protocol names of the connections the leader lists. */
async function leaderProtocols(cluster: TestCluster): Promise<string[]> {
  const leader = await cluster.waitForLeader();
  const r = await fetch(`http://127.0.0.1:${leader.httpPort}/api/connections`, { headers: GUEST, signal: AbortSignal.timeout(5000) });
  return ((await r.json()) as Array<{ protocol: string }>).map((c) => c.protocol);
}

describe("followers forward every protocol's port to the leader", { timeout: 240_000 }, () => {
  const { cluster, pass } = suiteCluster(3, ["--mqtt-port", "0", "--web-mqtt-port", "0", "--stomp-port", "0", "--web-stomp-port", "0"]);
  const lasting: LastingClient[] = [];
  after(async () => {
    for (const c of lasting) await c.end().catch(() => undefined);
  });
  /** Per follower: its ports and its lasting clients (MQTT, Web MQTT, Web STOMP). */
  const onFollower: Array<{ node: NodeInfo; ports: ClientPorts; clients: Record<"mqtt" | "webMqtt" | "webStomp", LastingClient> }> = [];

  it("MQTT, Web MQTT, STOMP, Web STOMP and AMQP 1.0 clients on either follower publish and consume through the leader", async () => {
    const leader = await cluster.waitForLeader();
    for (const [i, node] of cluster.nodes.filter((n) => n !== leader).entries()) {
      const ports = await portsOf(cluster, node);
      const clients = {
        mqtt: mqttClient(`mqtt://127.0.0.1:${port(ports, "mqtt")}`, `mqtt-${i}`),
        webMqtt: mqttClient(`ws://127.0.0.1:${port(ports, "webMqtt")}/ws`, `web-mqtt-${i}`),
        webStomp: webStompClient(`ws://127.0.0.1:${port(ports, "webStomp")}/ws`, `web-stomp-${i}`),
      };
      lasting.push(...Object.values(clients));
      onFollower.push({ node, ports, clients });
      for (const c of Object.values(clients)) await c.round(`before-${i}`);
      await stompRound(port(ports, "stomp"), `stomp-${i}`, `before-${i}`);
      await amqp1Round(port(ports, "amqp"), node.httpPort, String(i), "before");
    }
    // Followers run no broker: the leader holds every one of these connections.
    const protocols = await leaderProtocols(cluster);
    for (const p of ["MQTT 3.1.1", "Web MQTT 3.1.1", "Web STOMP 1.2"]) assert.equal(protocols.filter((x) => x === p).length, 2, `${p} connections on the leader: ${protocols.join(", ")}`);
    pass();
  });

  it("after kill -9 of the leader, the clients reconnect through the same follower addresses and work again", async () => {
    assert.equal(onFollower.length, 2, "the first test ran");
    const leader = await cluster.waitForLeader();
    const before = onFollower.map((f) => Object.values(f.clients).map((c) => c.connects));
    await cluster.kill(leader);
    const next = await cluster.waitForLeader(leader, FAILOVER_MS);
    assert.ok(onFollower.some((f) => f.node === next), "a follower was elected");
    for (const [i, f] of onFollower.entries()) {
      // The lasting clients were dropped (by the proxy, or by the front closing for its node's broker) and reconnected.
      const clients = Object.values(f.clients);
      await Promise.all(clients.map((c, k) => retrying(`client ${k} through ${f.node.name}`, () => c.round(`after-${i}`))));
      clients.forEach((c, k) => assert.ok(c.connects > before[i]![k]!, `client ${k} on ${f.node.name} reconnected`));
      await retrying(`STOMP through ${f.node.name}`, () => stompRound(port(f.ports, "stomp"), `stomp-${i}`, `after-${i}`));
      await retrying(`AMQP 1.0 through ${f.node.name}`, () => amqp1Round(port(f.ports, "amqp"), f.node.httpPort, String(i), "after"));
    }
    pass();
  });
});
