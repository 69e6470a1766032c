// `coney --workers 2` (preview): every surface reaches a queue led by the other worker.
// - The management API's get, purge and delete (with if-empty / if-unused) of a queue led by the
//   other worker answer as for a local queue: same status, same figures; coneyctl's purge and
//   delete, and the aliveness test too.
// - MQTT (mqtt.js), STOMP (raw frames) and AMQP 1.0 (rhea, v2 addresses) publish to and consume
//   from a queue led by the worker their connection did not land on.
// Real process trees; each client is reopened until it lands on the worker the case needs.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import type { MqttClient } from "mqtt";
import { eventually, withTimeout } from "../helpers/wait.js";
import { connectMqtt, type TestMqttClient } from "../helpers/mqtt-client.js";
import { StompWire } from "../helpers/stomp-wire.js";
import { bodyOf, close as closeAmqp1, connect as connectAmqp1, data, openSender, sendAll } from "../helpers/rhea-client.js";
import type { Connection, EventContext } from "rhea";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";
import { run } from "../cli/run-coneyctl.js";
import { leaderIndex, onWorker, pinnedApis, type PinnedApi } from "./pinned-workers.js";

/** A name like `prefix-n` that worker `w` leads. */
function nameLedBy(prefix: string, w: number): string {
  for (let i = 0; ; i++) if (leaderIndex(`${prefix}-${i}`) === w) return `${prefix}-${i}`;
}

describe("coney --workers 2: every surface reaches a queue led by the other worker", () => {
  let p: WorkersProcess;
  let apis: PinnedApi[];
  let amqpConn: ChannelModel;
  let mqttPort = 0;
  let stompPort = 0;
  const toClose: Array<() => unknown> = [];
  /** Every client's socket: destroyed at the end, so one whose close was never answered (its worker killed) cannot keep this file alive. */
  const sockets: Array<{ destroy(): void }> = [];

  before(async () => {
    p = await startWorkers();
    apis = await pinnedApis(p.httpPort);
    const listeners = ((await apis[0]!.request("GET", "/api/overview")).json as { listeners: Array<{ protocol: string; port: number }> }).listeners;
    const portOf = (protocol: string): number => {
      const found = listeners.find((l) => l.protocol === protocol);
      if (found === undefined) throw new Error(`no ${protocol} listener in ${JSON.stringify(listeners)}; the process tree's last lines:\n${p.lines.slice(-30).map((l) => JSON.stringify(l)).join("\n")}`);
      return found.port;
    };
    mqttPort = portOf("mqtt");
    stompPort = portOf("stomp");
    amqpConn = await amqp.connect(p.amqpUrl);
    // The last test kills worker 1: when this connection landed there, amqplib emits 'error' for
    // the unexpected close, and without a listener that throw skips its own clean-up, leaving its
    // heartbeat intervals to keep this file's process alive forever.
    amqpConn.on("error", () => {});
  });
  after(async () => {
    // Bounded: a client of the worker killed in the last test may never hear its close answered.
    for (const c of toClose) await withTimeout(Promise.resolve(c()), 2000, "a client's close").catch(() => {});
    for (const a of apis ?? []) a.close();
    await withTimeout(amqpConn?.close() ?? Promise.resolve(), 2000, "the AMQP connection's close").catch(() => {});
    await p.close();
    for (const socket of sockets) socket.destroy();
  });

  /** Declares durable `name` and publishes `bodies` with confirms (from whichever worker the AMQP connection is on). */
  async function fill(name: string, bodies: string[]): Promise<void> {
    const ch = await amqpConn.createConfirmChannel();
    await ch.assertQueue(name, { durable: true });
    for (const b of bodies) ch.sendToQueue(name, Buffer.from(b), { persistent: true });
    await ch.waitForConfirms();
    await ch.close();
    // Declared through one worker, known to the other once the definitions relay told it.
    for (const a of apis) await eventually(async () => (await a.request("GET", `/api/queues/%2F/${name}`)).status === 200, 5000, `${name} known on ${a.node}`);
  }
  const countOn = async (api: PinnedApi, name: string): Promise<number> => ((await api.request("GET", `/api/queues/%2F/${name}`)).json as { messages: number }).messages;

  it("the API's get, purge and delete answer for the other worker's queue as for a local one", async () => {
    for (const w of [0, 1]) {
      const api = apis[w]!;
      const local = nameLedBy(`api-local-${w}`, w);
      const remote = nameLedBy(`api-remote-${w}`, 1 - w);
      for (const q of [local, remote]) {
        await fill(q, ["m1", "m2", "m3", "m4"]);
        // get, requeued: the same two messages stay; message_count is what is left after each.
        const peek = await api.request("POST", `/api/queues/%2F/${q}/get`, { count: 2, ackmode: "ack_requeue_true", encoding: "auto" });
        assert.equal(peek.status, 200, `${api.node} get ${q}: ${peek.text}`);
        assert.deepEqual((peek.json as Array<{ payload: string; message_count: number }>).map((m) => [m.payload, m.message_count]), [["m1", 3], ["m2", 2]], `${api.node} peek ${q}`);
        // get, acked: taken for good.
        const take = await api.request("POST", `/api/queues/%2F/${q}/get`, { count: 1, ackmode: "ack_requeue_false", encoding: "auto" });
        assert.equal((take.json as Array<{ payload: string }>)[0]!.payload, "m1", `${api.node} take ${q}`);
        await eventually(async () => (await countOn(api, q)) === 3, 5000, `${q} holds 3 after the take`);
        // delete if-empty refuses a queue with messages, with the local refusal's status and text.
        const refused = await api.request("DELETE", `/api/queues/%2F/${q}?if-empty=true`);
        assert.equal(refused.status, 400, `${api.node} if-empty ${q}: ${refused.text}`);
        assert.match(refused.text, /not empty/);
        const purged = await api.request("DELETE", `/api/queues/%2F/${q}/contents`);
        assert.equal(purged.status, 204, `${api.node} purge ${q}: ${purged.text}`);
        assert.equal(((await api.request("POST", `/api/queues/%2F/${q}/get`, { count: 5, ackmode: "ack_requeue_false", encoding: "auto" })).json as unknown[]).length, 0);
        const deleted = await api.request("DELETE", `/api/queues/%2F/${q}?if-empty=true&if-unused=true`);
        assert.equal(deleted.status, 204, `${api.node} delete ${q}: ${deleted.text}`);
        // Gone on both workers (the leader's copy and the other's RemoteQueue).
        for (const a of apis) await eventually(async () => (await a.request("GET", `/api/queues/%2F/${q}`)).status === 404, 5000, `${q} gone on ${a.node}`);
      }
      const missing = await api.request("DELETE", `/api/queues/%2F/${remote}`);
      assert.equal(missing.status, 404, "a deleted queue is not found");
    }
  });

  it("delete if-unused refuses the other worker's queue while it has a consumer", async () => {
    const q = nameLedBy("api-unused", 1);
    await fill(q, []);
    const ch = await amqpConn.createChannel();
    await ch.consume(q, () => {});
    const api = apis[0]!;
    await eventually(async () => ((await api.request("GET", `/api/queues/%2F/${q}`)).json as { consumers: number }).consumers === 1, 5000, "the consumer counted on w0");
    const refused = await api.request("DELETE", `/api/queues/%2F/${q}?if-unused=true`);
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.text, /in use/);
    await ch.close();
    const deleted = await api.request("DELETE", `/api/queues/%2F/${q}?if-unused=true`);
    assert.equal(deleted.status, 204, deleted.text);
  });

  it("coneyctl purge_queue and delete_queue reach a queue whichever worker answers", async () => {
    // One queue led by each worker: wherever coneyctl's connection lands, one of the two is remote.
    const queues = [nameLedBy("ctl", 0), nameLedBy("ctl", 1)];
    for (const q of queues) {
      await fill(q, ["c1", "c2"]);
      const purged = await run(["--port", String(p.httpPort), "purge_queue", q]);
      assert.equal(purged.code, 0, purged.stderr);
      await eventually(async () => (await countOn(apis[leaderIndex(q)]!, q)) === 0, 5000, `${q} purged`);
      const deleted = await run(["--port", String(p.httpPort), "delete_queue", q]);
      assert.equal(deleted.code, 0, deleted.stderr);
      for (const a of apis) await eventually(async () => (await a.request("GET", `/api/queues/%2F/${q}`)).status === 404, 5000, `${q} gone on ${a.node}`);
    }
  });

  it("the aliveness test passes on both workers", async () => {
    for (const api of apis) {
      const r = await api.request("GET", "/api/aliveness-test/%2F");
      assert.equal(r.status, 200, `${api.node}: ${r.text}`);
      assert.deepEqual(r.json, { status: "ok" });
    }
  });

  // ---------------------------------------------------------------- MQTT

  const mqttUrl = (): string => `mqtt://127.0.0.1:${mqttPort}`;
  const mqttPortOf = (c: TestMqttClient): number => (c.client.stream as unknown as { localPort: number }).localPort;
  const endMqtt = (c: TestMqttClient): Promise<void> => c.client.endAsync(true).then(() => undefined);
  /** A client id whose QoS `qos` session queue worker `w` leads. */
  const clientIdLedBy = (prefix: string, w: number, qos = 1): string => {
    for (let i = 0; ; i++) if (leaderIndex(`mqtt-subscription-${prefix}-${i}qos${qos}`) === w) return `${prefix}-${i}`;
  };
  async function mqttOn(w: number, clientId: string, clean = true): Promise<TestMqttClient> {
    const c = await onWorker(apis, w, () => connectMqtt(mqttUrl(), { clientId, clean }), mqttPortOf, endMqtt);
    toClose.push(() => endMqtt(c));
    sockets.push(c.client.stream);
    return c;
  }
  const publishMqtt = (c: MqttClient, topic: string, body: string, qos: 0 | 1, retain = false): Promise<unknown> => c.publishAsync(topic, body, { qos, retain });

  it("MQTT QoS 0 and 1: subscriber and publisher on the worker that does not lead the subscriber's queues", async () => {
    for (const w of [0, 1]) {
      const id = clientIdLedBy(`cross-sub-${w}`, 1 - w);
      // QoS 0 subscriptions have their own queue: check where it leads too.
      assert.equal(leaderIndex(`mqtt-subscription-${id}qos1`), 1 - w);
      const sub = await mqttOn(w, id);
      await sub.client.subscribeAsync(`cross/${w}/q1`, { qos: 1 });
      await sub.client.subscribeAsync(`cross/${w}/q0`, { qos: 0 });
      const pub = await mqttOn(w, `cross-pub-${w}`);
      await publishMqtt(pub.client, `cross/${w}/q1`, "one", 1);
      await publishMqtt(pub.client, `cross/${w}/q0`, "zero", 0);
      const got = await sub.waitFor(2, 10_000);
      assert.deepEqual(got.map((m) => [m.topic, m.payload.toString(), m.packet.qos]).sort(), [[`cross/${w}/q0`, "zero", 0], [`cross/${w}/q1`, "one", 1]]);
      await endMqtt(sub);
      await endMqtt(pub);
    }
  });

  it("MQTT persistent session whose queue the other worker leads: messages kept while away, then a clean start deletes it there", async () => {
    const id = clientIdLedBy("persist", 1);
    const queue = `mqtt-subscription-${id}qos1`;
    const first = await mqttOn(0, id, false);
    await first.client.subscribeAsync("persist/t", { qos: 1 });
    await endMqtt(first);
    const pub = await mqttOn(1, "persist-pub");
    for (const b of ["a", "b", "c"]) await publishMqtt(pub.client, "persist/t", b, 1);
    await eventually(async () => (await countOn(apis[1]!, queue)) === 3, 5000, "3 messages kept in the session queue");
    const again = await mqttOn(0, id, false);
    assert.equal(again.connack?.sessionPresent, true, "the session is present");
    assert.deepEqual((await again.waitFor(3, 10_000)).map((m) => m.payload.toString()), ["a", "b", "c"]);
    await endMqtt(again);
    // A clean start from the worker that does not lead it deletes the session queue on its leader.
    const clean = await mqttOn(0, id, true);
    assert.equal(clean.connack?.sessionPresent, false);
    for (const a of apis) await eventually(async () => (await a.request("GET", `/api/queues/%2F/${queue}`)).status === 404, 5000, `${queue} gone on ${a.node}`);
    await endMqtt(clean);
    await endMqtt(pub);
  });

  it("MQTT retained messages reach a subscriber on either worker", async () => {
    const pub = await mqttOn(0, "retain-pub");
    await publishMqtt(pub.client, "retained/x", "kept", 1, true);
    for (const w of [0, 1]) {
      const sub = await mqttOn(w, `retain-sub-${w}`);
      await sub.client.subscribeAsync("retained/x", { qos: 1 });
      const [m] = await sub.waitFor(1, 10_000);
      assert.equal(m!.payload.toString(), "kept", `retained on w${w}`);
      assert.equal(m!.packet.retain, true);
      await endMqtt(sub);
    }
    await endMqtt(pub);
  });

  // ---------------------------------------------------------------- STOMP

  it("STOMP: SEND to /queue/x led by the other worker with a receipt, SUBSCRIBE with client-individual acks", async () => {
    for (const w of [0, 1]) {
      const q = nameLedBy(`stomp-x-${w}`, 1 - w);
      const s = await onWorker(apis, w, () => StompWire.login(stompPort), (c) => c.socket.localPort!, (c) => c.close());
      toClose.push(() => s.close());
    sockets.push(s.socket);
      sockets.push(s.socket);
      for (const b of ["s1", "s2"]) {
        s.send("SEND", { destination: `/queue/${q}`, receipt: `r-${b}`, persistent: "true" }, b);
        assert.equal((await s.nextOf("RECEIPT", 10_000)).headers["receipt-id"], `r-${b}`);
      }
      s.send("SUBSCRIBE", { id: "0", destination: `/queue/${q}`, ack: "client-individual", "prefetch-count": "1" });
      const m1 = await s.nextOf("MESSAGE", 10_000);
      assert.equal(m1.body.toString(), "s1");
      s.send("ACK", { id: m1.headers["ack"]! });
      const m2 = await s.nextOf("MESSAGE", 10_000);
      assert.equal(m2.body.toString(), "s2");
      s.send("NACK", { id: m2.headers["ack"]!, requeue: "false" });
      s.send("UNSUBSCRIBE", { id: "0", receipt: "u" });
      await s.nextOf("RECEIPT", 10_000);
      await eventually(async () => (await countOn(apis[1 - w]!, q)) === 0, 5000, `${q} empty on its leader`);
      s.close();
    }
  });

  it("STOMP: a durable subscription's queue on the other worker is deleted by UNSUBSCRIBE durable:true before the receipt", async () => {
    const id = "dur-sub";
    let queue = "";
    for (let i = 0; ; i++) {
      // RabbitMQ names a durable topic subscription's queue after its id.
      if (leaderIndex(`stomp-subscription-${id}-${i}`) === 1) {
        queue = `stomp-subscription-${id}-${i}`;
        break;
      }
    }
    const s = await onWorker(apis, 0, () => StompWire.login(stompPort, { "client-id": "dur" }), (c) => c.socket.localPort!, (c) => c.close());
    toClose.push(() => s.close());
    s.send("SUBSCRIBE", { id: "1", destination: "/topic/dur.t", durable: "true", "auto-delete": "false", "x-queue-name": queue, receipt: "s" });
    await s.nextOf("RECEIPT", 10_000);
    await eventually(async () => (await apis[1]!.request("GET", `/api/queues/%2F/${queue}`)).status === 200, 5000, "the durable subscription's queue on its leader");
    s.send("UNSUBSCRIBE", { id: "1", durable: "true", receipt: "u" });
    await s.nextOf("RECEIPT", 10_000);
    assert.equal((await apis[1]!.request("GET", `/api/queues/%2F/${queue}`)).status, 404, "deleted on its leader before the receipt");
    s.close();
  });

  // ---------------------------------------------------------------- AMQP 1.0

  it("AMQP 1.0: send with settlement and receive with credit and every outcome on /queues/x led by the other worker", async () => {
    for (const w of [0, 1]) {
      const q = nameLedBy(`amqp1-x-${w}`, 1 - w);
      await fill(q, []);
      const c = await onWorker(apis, w, () => connectAmqp1(p.amqpPort, { hostname: "vhost:/" }), (x: Connection) => (x as unknown as { socket: { localPort: number } }).socket.localPort, (x) => closeAmqp1(x));
      toClose.push(() => closeAmqp1(c));
      sockets.push((c as unknown as { socket: { destroy(): void } }).socket);
      const sender = await openSender(c, `/queues/${q}`);
      const outcomes = await sendAll(sender, ["o1", "o2", "o3", "o4"].map((b) => ({ body: data(b), durable: true })));
      assert.deepEqual(outcomes.map((o) => o.outcome), ["accepted", "accepted", "accepted", "accepted"]);
      // Credit one at a time. Each outcome once: accept o1; release o2, then accept it; reject o3;
      // modify o4 (delivery failed), then accept it.
      const receiver = c.open_receiver({ source: { address: `/queues/${q}` }, autoaccept: false, credit_window: 0 });
      const waiting: Array<(d: { body: string; settle: EventContext["delivery"] }) => void> = [];
      receiver.on("message", (ctx: EventContext) => waiting.shift()?.({ body: bodyOf(ctx.message!).toString(), settle: ctx.delivery }));
      const next = (): Promise<{ body: string; settle: EventContext["delivery"] }> => {
        const got = new Promise<{ body: string; settle: EventContext["delivery"] }>((resolve) => waiting.push(resolve));
        receiver.add_credit(1);
        return withTimeout(got, 10_000, "the next AMQP 1.0 message");
      };
      const seen: string[] = [];
      for (let n = 0; n < 6; n++) {
        const { body, settle } = await next();
        const again = seen.includes(body);
        seen.push(body);
        if (body === "o2" && !again) settle!.release();
        else if (body === "o3") settle!.reject({ condition: "test:rejected", description: "no" });
        else if (body === "o4" && !again) settle!.modified({ delivery_failed: true, undeliverable_here: false });
        else settle!.accept();
      }
      assert.deepEqual([...seen].sort(), ["o1", "o2", "o2", "o3", "o4", "o4"]);
      await eventually(async () => (await countOn(apis[1 - w]!, q)) === 0, 5000, `${q} empty on its leader`);
      receiver.close();
      await closeAmqp1(c);
    }
  });
  // Last: it restarts worker 1.
  it("MQTT retained messages: a restarted worker takes the set from the other, with what changed while it was down", async () => {
    const pub = await mqttOn(0, "rejoin-pub");
    await publishMqtt(pub.client, "rejoin/a", "before", 1, true);
    await publishMqtt(pub.client, "rejoin/gone", "cleared while down", 1, true);
    const pid = Number(((await apis[0]!.request("GET", "/api/nodes")).json as Array<{ name: string; os_pid: string }>).find((n) => n.name === apis[1]!.node)!.os_pid);
    const from = p.lines.length;
    process.kill(pid, "SIGKILL");
    await p.logLine((l) => l.msg === "worker exited; restarting it" && l["worker"] === "w1", "the primary seeing w1 exit", 10_000, from);
    // While w1 is down: one more retained, one cleared.
    await publishMqtt(pub.client, "rejoin/b", "while down", 1, true);
    await publishMqtt(pub.client, "rejoin/gone", "", 1, true);
    const joined = await p.logLine((l) => l.msg === "worker following the others' MQTT retained messages", "the restarted worker's retained join", 60_000, from);
    assert.equal(joined["copied_from_a_peer"], true);
    await p.logLine((l) => l.msg === "worker serving" && l["worker"] === "w1", "w1 serving again", 60_000, from);
    for (const a of apis) a.close();
    apis = await pinnedApis(p.httpPort);
    const sub = await mqttOn(1, "rejoin-sub");
    await sub.client.subscribeAsync("rejoin/#", { qos: 1 });
    const got = await sub.waitFor(2, 10_000);
    assert.deepEqual(got.map((m) => [m.topic, m.payload.toString()]).sort(), [["rejoin/a", "before"], ["rejoin/b", "while down"]]);
    await endMqtt(sub);
    await endMqtt(pub);
  });
});
