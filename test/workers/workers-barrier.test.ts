// `coney --workers 2` (preview): a definition change is answered once every worker applied it
// (issue 42, "Answered once everyone knows"). Changes made through worker 0 — over the management
// API or AMQP — are used at once from worker 1, with no waiting in between: a login as a user just
// created, a connection to a vhost just created, a mandatory publish to an exchange just declared,
// a consume of a queue declared over HTTP, a publish through an import's objects, a STOMP receipt,
// an MQTT SUBACK, an AMQP 1.0 attach that declares its queue. Each step runs a
// few times, so a relay that merely tends to be fast enough would be caught.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ConfirmChannel } from "amqplib";
import { withTimeout } from "../helpers/wait.js";
import { StompWire } from "../helpers/stomp-wire.js";
import { connectMqtt, type TestMqttClient } from "../helpers/mqtt-client.js";
import type { Connection } from "rhea";
import { close as closeAmqp1, connect as connectAmqp1, openSender } from "../helpers/rhea-client.js";
import { onWorker, workerOfPort } from "./pinned-workers.js";
import { amqpLocalPort, pinnedWorkersSuite } from "./pinned-workers-suite.js";

const ROUNDS = 10;

/** Publishes mandatory with confirms; resolves "routed" on the ack, "returned" when basic.return came first. */
function publishMandatory(ch: ConfirmChannel, exchange: string, key: string, body: string): Promise<"routed" | "returned"> {
  let returned = false;
  const onReturn = (): void => {
    returned = true;
  };
  ch.once("return", onReturn);
  return withTimeout(
    new Promise<"routed" | "returned">((resolve, reject) =>
      ch.publish(exchange, key, Buffer.from(body), { mandatory: true }, (err) => {
        ch.off("return", onReturn);
        if (err) reject(err instanceof Error ? err : new Error(String(err)));
        else resolve(returned ? "returned" : "routed");
      }),
    ),
    10_000,
    `the confirm of ${body}`,
  );
}

describe("coney --workers 2: definition changes answered once every worker knows them", () => {
  const suite = pinnedWorkersSuite();
  const { apis, connect, connectOn } = suite;

  /** Two logins right after the change: the primary hands connections out in turn, so one lands on each worker; both must succeed. */
  async function loginsEverywhere(u: string): Promise<Set<number>> {
    const reached = new Set<number>();
    for (let i = 0; i < 2; i++) {
      const c = await connect(u);
      reached.add(await workerOfPort(apis, amqpLocalPort(c)));
      await c.close();
    }
    return reached;
  }

  it("a user and permissions made through worker 0's API log in at once on either worker", async () => {
    const reached = new Set<number>();
    for (let i = 0; i < ROUNDS; i++) {
      const user = `barrier-user-${i}`;
      assert.equal((await apis[0]!.request("PUT", `/api/users/${user}`, { password: "pw", tags: "" })).status, 201);
      const perm = await apis[0]!.request("PUT", `/api/permissions/%2F/${user}`, { configure: ".*", write: ".*", read: ".*" });
      assert.ok(perm.status === 201 || perm.status === 204, `permissions answered ${perm.status}`);
      for (const w of await loginsEverywhere(`amqp://${user}:pw@127.0.0.1:${suite.p.amqpPort}`)) reached.add(w);
    }
    assert.ok(reached.has(1), "a login landed on worker 1");
  });

  it("a vhost made through worker 0's API is open at once on either worker", async () => {
    const reached = new Set<number>();
    for (let i = 0; i < ROUNDS; i++) {
      const vhost = `barrier-vhost-${i}`;
      assert.equal((await apis[0]!.request("PUT", `/api/vhosts/${vhost}`)).status, 201);
      for (const w of await loginsEverywhere(`amqp://guest:guest@127.0.0.1:${suite.p.amqpPort}/${vhost}`)) reached.add(w);
    }
    assert.ok(reached.has(1), "a connection landed on worker 1");
  });

  it("an exchange and binding declared on worker 0 route a mandatory publish from worker 1 at once; a deleted one is gone at once", async () => {
    const c0 = await connectOn(0);
    const c1 = await connectOn(1);
    const ch0 = await c0.createChannel();
    const ch1 = await c1.createConfirmChannel();
    for (let i = 0; i < ROUNDS; i++) {
      const x = `barrier-x-${i}`;
      const q = `barrier-xq-${i}`;
      await ch0.assertExchange(x, "direct", { durable: false });
      await ch0.assertQueue(q, { durable: false });
      await ch0.bindQueue(q, x, "k");
      assert.equal(await publishMandatory(ch1, x, "k", `m${i}`), "routed");
      await ch0.unbindQueue(q, x, "k");
      assert.equal(await publishMandatory(ch1, x, "k", `after-unbind-${i}`), "returned");
    }
    // exchange.bind, then exchange.delete: the other worker follows each before the answer.
    await ch0.assertExchange("barrier-src", "fanout", { durable: false });
    await ch0.assertExchange("barrier-dst", "fanout", { durable: false });
    await ch0.assertQueue("barrier-dst-q", { durable: false });
    await ch0.bindQueue("barrier-dst-q", "barrier-dst", "");
    await ch0.bindExchange("barrier-dst", "barrier-src", "");
    assert.equal(await publishMandatory(ch1, "barrier-src", "", "via-e2e"), "routed");
    await ch0.deleteExchange("barrier-src");
    const probe = await c1.createChannel();
    probe.on("error", () => {});
    await assert.rejects(probe.checkExchange("barrier-src"), /404 \(NOT-FOUND\)/);
  });

  it("a queue declared over HTTP on worker 0 is consumed at once from worker 1; one deleted over AMQP is gone at once", async () => {
    const c1 = await connectOn(1);
    const c0 = await connectOn(0);
    const ch0 = await c0.createChannel();
    for (let i = 0; i < ROUNDS; i++) {
      const q = `barrier-http-q-${i}`;
      assert.equal((await apis[0]!.request("PUT", `/api/queues/%2F/${q}`, { durable: false })).status, 201);
      const ch1 = await c1.createChannel();
      let resolve!: (body: string) => void;
      const got = new Promise<string>((r) => (resolve = r));
      await ch1.consume(q, (m) => m && resolve(m.content.toString()), { noAck: true });
      ch1.sendToQueue(q, Buffer.from(`hello-${i}`));
      assert.equal(await withTimeout(got, 10_000, `a message from ${q}`), `hello-${i}`);
      await ch1.close();
      await ch0.deleteQueue(q);
      const probe = await c1.createChannel();
      probe.on("error", () => {});
      await assert.rejects(probe.checkQueue(q), /404 \(NOT-FOUND\)/);
    }
  });

  it("a definitions import through worker 0 is used at once from worker 1", async () => {
    const c1 = await connectOn(1);
    const ch1 = await c1.createConfirmChannel();
    for (let i = 0; i < ROUNDS; i++) {
      const defs = {
        exchanges: [{ name: `imp-x-${i}`, vhost: "/", type: "topic", durable: true, auto_delete: false, internal: false, arguments: {} }],
        queues: [{ name: `imp-q-${i}`, vhost: "/", durable: true, auto_delete: false, arguments: {} }],
        bindings: [{ source: `imp-x-${i}`, vhost: "/", destination: `imp-q-${i}`, destination_type: "queue", routing_key: "a.#", arguments: {} }],
      };
      const r = await apis[0]!.request("POST", "/api/definitions", defs);
      assert.ok(r.status === 200 || r.status === 204, `import answered ${r.status} ${r.text}`);
      assert.equal(await publishMandatory(ch1, `imp-x-${i}`, "a.b", `imported-${i}`), "routed");
      const got = await ch1.get(`imp-q-${i}`, { noAck: true });
      assert.ok(got !== false);
      assert.equal(got.content.toString(), `imported-${i}`);
    }
  });

  it("STOMP: a SUBSCRIBE's receipt on worker 0 means a mandatory publish from worker 1 routes to it", async () => {
    const listeners = ((await apis[0]!.request("GET", "/api/overview")).json as { listeners: Array<{ protocol: string; port: number }> }).listeners;
    const stompPort = listeners.find((l) => l.protocol === "stomp")!.port;
    const s = await onWorker(apis, 0, () => StompWire.login(stompPort), (c) => c.socket.localPort!, (c) => c.close());
    const c1 = await connectOn(1);
    const ch1 = await c1.createConfirmChannel();
    try {
      for (let i = 0; i < ROUNDS; i++) {
        s.send("SUBSCRIBE", { id: `s${i}`, destination: `/topic/barrier.${i}`, receipt: `sub-${i}` });
        assert.equal((await s.nextOf("RECEIPT", 10_000)).headers["receipt-id"], `sub-${i}`);
        assert.equal(await publishMandatory(ch1, "amq.topic", `barrier.${i}`, `t${i}`), "routed");
        assert.equal((await s.nextOf("MESSAGE", 10_000)).body.toString(), `t${i}`);
        s.send("UNSUBSCRIBE", { id: `s${i}`, receipt: `unsub-${i}` });
        assert.equal((await s.nextOf("RECEIPT", 10_000)).headers["receipt-id"], `unsub-${i}`);
        assert.equal(await publishMandatory(ch1, "amq.topic", `barrier.${i}`, `gone${i}`), "returned");
      }
    } finally {
      s.close();
    }
  });

  it("MQTT: a SUBACK on worker 0 means a mandatory publish from worker 1 routes to the subscription", async () => {
    const listeners = ((await apis[0]!.request("GET", "/api/overview")).json as { listeners: Array<{ protocol: string; port: number }> }).listeners;
    const mqttPort = listeners.find((l) => l.protocol === "mqtt")!.port;
    const portOf = (c: TestMqttClient): number => (c.client.stream as unknown as { localPort: number }).localPort;
    const end = (c: TestMqttClient): Promise<void> => c.client.endAsync(true).then(() => undefined);
    const ch1 = await (await connectOn(1)).createConfirmChannel();
    for (let i = 0; i < ROUNDS; i++) {
      // A new clean session each round: its queue and binding are new to worker 1.
      const sub = await onWorker(apis, 0, () => connectMqtt(`mqtt://127.0.0.1:${mqttPort}`, { clientId: `barrier-mqtt-${i}` }), portOf, end);
      try {
        await sub.client.subscribeAsync(`barrier/mqtt/${i}`, { qos: 1 });
        assert.equal(await publishMandatory(ch1, "amq.topic", `barrier.mqtt.${i}`, `q${i}`), "routed", `round ${i}`);
        assert.equal((await sub.waitFor(1, 10_000))[0]!.payload.toString(), `q${i}`);
      } finally {
        await end(sub);
      }
    }
  });

  it("AMQP 1.0: an attach that declares /queue/<q> on worker 0 means a mandatory publish from worker 1 routes to it", async () => {
    const a = await onWorker(apis, 0, () => connectAmqp1(suite.p.amqpPort, { hostname: "vhost:/" }), (x: Connection) => (x as unknown as { socket: { localPort: number } }).socket.localPort, (x) => closeAmqp1(x));
    const ch1 = await (await connectOn(1)).createConfirmChannel();
    try {
      for (let i = 0; i < ROUNDS; i++) {
        const receiver = a.open_receiver({ source: { address: `/queue/barrier-amqp1-${i}` } });
        await withTimeout(new Promise<void>((resolve) => receiver.once("receiver_open", () => resolve())), 10_000, `attach ${i}`);
        assert.equal(await publishMandatory(ch1, "", `barrier-amqp1-${i}`, `a${i}`), "routed", `round ${i}`);
        await openSender(a, `/queue/barrier-amqp1-target-${i}`);
        assert.equal(await publishMandatory(ch1, "", `barrier-amqp1-target-${i}`, `t${i}`), "routed", `round ${i} (sender)`);
      }
    } finally {
      await closeAmqp1(a);
    }
  });
});
