// `coney --workers 2` (preview): an RPC client's exclusive reply queue and its direct reply-to
// reach across workers (issue 42). An exclusive queue stays on its connection's worker, the other
// worker routes to it (default exchange and bindings, with confirms) and refuses it to its own
// clients with RabbitMQ's RESOURCE_LOCKED; it goes everywhere when its connection closes or its
// worker is killed -9. A direct reply-to reply published on the other worker reaches the
// requester. Real process trees, real amqplib clients, the management API over HTTP.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import amqp, { type Channel, type ChannelModel, type ConfirmChannel, type ConsumeMessage } from "amqplib";
import { eventually, withTimeout } from "../helpers/wait.js";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";
import { queueGroupOf } from "../../src/broker/index.js";

/** A GET on a new TCP connection each time: the primary hands each one to a worker, round-robin. */
function freshGet(port: number, path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path, agent: false, auth: "guest:guest" }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: body === "" ? null : JSON.parse(body) }));
    });
    req.on("error", reject);
  });
}

const locked = (q: string): RegExp =>
  new RegExp(
    `405 \\(RESOURCE-LOCKED\\) with message "RESOURCE_LOCKED - cannot obtain exclusive access to locked queue '${q.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}' in vhost '/'\\. It could be originally declared on another connection or the exclusive property value does not match that of the original declaration\\."`,
  );

/** Resolves with the first message `ch` delivers from `queue`. */
async function firstFrom(ch: Channel, queue: string): Promise<ConsumeMessage> {
  let resolve!: (m: ConsumeMessage) => void;
  const got = new Promise<ConsumeMessage>((r) => (resolve = r));
  await ch.consume(queue, (m) => m && resolve(m), { noAck: true });
  return withTimeout(got, 10_000, `a message from ${queue}`);
}

const confirmed = (ch: ConfirmChannel, exchange: string, key: string, body: string, opts: amqp.Options.Publish = {}): Promise<void> =>
  withTimeout(new Promise<void>((resolve, reject) => ch.publish(exchange, key, Buffer.from(body), opts, (err) => (err ? reject(err) : resolve()))), 10_000, `the confirm of ${body}`);

describe("coney --workers 2: exclusive queues and direct reply-to across workers", () => {
  let p: WorkersProcess;
  const open: ChannelModel[] = [];
  /** Connections by the worker they landed on ("…-w0@host", "…-w1@host"). */
  const onWorker = new Map<string, ChannelModel[]>();

  /** A new connection, and the worker it landed on (a worker lists its own connections). */
  async function connect(name: string): Promise<{ c: ChannelModel; node: string }> {
    const c = await amqp.connect(p.amqpUrl, { clientProperties: { connection_name: name } });
    c.on("error", () => {});
    open.push(c);
    let node: string | undefined;
    await eventually(async () => {
      const list = (await freshGet(p.httpPort, "/api/connections")).body as Array<{ node: string; client_properties: { connection_name?: string } }>;
      node = list.find((x) => x.client_properties.connection_name === name)?.node;
      return node !== undefined;
    }, 10_000, `connection ${name} in /api/connections`);
    return { c, node: node! };
  }

  /** Opens connections until `worker` has one more than `have` (or both workers have one when null). */
  async function connectionOn(worker: string, tag: string): Promise<ChannelModel> {
    for (let i = 0; i < 40; i++) {
      const { c, node } = await connect(`${tag}-${i}`);
      onWorker.set(node, [...(onWorker.get(node) ?? []), c]);
      if (node === worker) return c;
    }
    throw new Error(`no connection landed on ${worker}`);
  }

  before(async () => {
    p = await startWorkers();
    for (let i = 0; i < 40 && onWorker.size < 2; i++) {
      const { c, node } = await connect(`excl-${i}`);
      onWorker.set(node, [...(onWorker.get(node) ?? []), c]);
    }
    assert.equal(onWorker.size, 2, "connections on both workers");
  });
  after(async () => {
    await Promise.all(open.map((c) => withTimeout(c.close(), 2000, "a connection's close").catch(() => {})));
    await p.close();
  });

  const workers = (): string[] => [...onWorker.keys()].sort();
  const connOn = (worker: string): ChannelModel => onWorker.get(worker)![0]!;
  const directions = (): Array<[string, string]> => [
    [workers()[0]!, workers()[1]!],
    [workers()[1]!, workers()[0]!],
  ];

  /** Every answer of 4 fresh GETs (so both workers answer): the queue's record, or null for a 404. */
  async function everyAnswer(queue: string): Promise<Array<Record<string, unknown> | null>> {
    const answers = [];
    for (let i = 0; i < 4; i++) {
      const r = await freshGet(p.httpPort, `/api/queues/%2F/${encodeURIComponent(queue)}`);
      answers.push(r.status === 404 ? null : (r.body as Record<string, unknown>));
    }
    return answers;
  }

  it("an RPC with an exclusive server-named reply queue works in both directions, the reply confirmed", async () => {
    for (const [clientSide, serverSide] of directions()) {
      const server = await connOn(serverSide).createConfirmChannel();
      const requests = `rpc-requests-${serverSide.slice(-2)}`;
      await server.assertQueue(requests, { durable: false });
      const confirms: Array<Promise<void>> = [];
      await server.consume(requests, (m) => {
        if (m === null) return;
        server.ack(m);
        // Published on the server's worker to a queue led by the client's: confirmed once stored there.
        confirms.push(confirmed(server, "", m.properties.replyTo as string, `re:${m.content}`, { correlationId: m.properties.correlationId as string }));
      });
      const client = await connOn(clientSide).createChannel();
      const { queue: replies } = await client.assertQueue("", { exclusive: true });
      assert.match(replies, /^amq\.gen-/);
      const reply = firstFrom(client, replies);
      client.sendToQueue(requests, Buffer.from("ping"), { replyTo: replies, correlationId: "c1" });
      const m = await reply;
      assert.equal(m.content.toString(), "re:ping");
      assert.equal(m.properties.correlationId, "c1");
      await Promise.all(confirms);
      // Both workers know it, led by the client's worker, exclusive.
      for (const q of await everyAnswer(replies)) {
        assert.ok(q !== null, "the reply queue on every worker");
        assert.equal(q["node"], clientSide);
        assert.equal(q["exclusive"], true);
      }
      await client.close();
      await server.close();
    }
  });

  it("an exclusive queue stays on its connection's worker whatever its name hashes to, and its bindings route from the other worker", async () => {
    const [owner, other] = workers() as [string, string];
    // A name the hash gives to the other worker.
    let name = "";
    for (let i = 0; name === ""; i++) if (workers()[queueGroupOf("/", `excl-hashed-${i}`, 2)] === other) name = `excl-hashed-${i}`;
    const ch = await connOn(owner).createChannel();
    await ch.assertQueue(name, { exclusive: true });
    await ch.bindQueue(name, "amq.direct", "to-excl");
    const got = firstFrom(ch, name);
    const pub = await connOn(other).createConfirmChannel();
    await confirmed(pub, "amq.direct", "to-excl", "through a binding");
    assert.equal((await got).content.toString(), "through a binding");
    for (const q of await everyAnswer(name)) assert.equal(q?.["node"], owner);
    await pub.close();
    await ch.close();
  });

  it("a client of the other worker gets RESOURCE_LOCKED for another connection's exclusive queue, as RabbitMQ answers", async () => {
    const [owner, other] = workers() as [string, string];
    const ch = await connOn(owner).createChannel();
    const name = "excl-locked";
    await ch.assertQueue(name, { exclusive: true });
    const attempts: Array<[string, (c: Channel) => Promise<unknown>]> = [
      ["declare exclusive", (c) => c.assertQueue(name, { exclusive: true })],
      ["declare", (c) => c.assertQueue(name, { exclusive: false })],
      ["passive declare", (c) => c.checkQueue(name)],
      ["consume", (c) => c.consume(name, () => {})],
      ["get", (c) => c.get(name)],
      ["bind", (c) => c.bindQueue(name, "amq.direct", "k")],
      ["purge", (c) => c.purgeQueue(name)],
      ["delete", (c) => c.deleteQueue(name)],
    ];
    for (const [what, attempt] of attempts) {
      const c = await connOn(other).createChannel();
      c.on("error", () => {});
      await assert.rejects(attempt(c), locked(name), what);
    }
    // Still there, still the owner's.
    assert.equal((await ch.checkQueue(name)).queue, name);
    await ch.close();
  });

  it("direct reply-to answers across workers in both directions; a reply to a requester gone is dropped and still confirmed", async () => {
    for (const [clientSide, serverSide] of directions()) {
      const server = await connOn(serverSide).createConfirmChannel();
      const requests = `drt-requests-${serverSide.slice(-2)}`;
      await server.assertQueue(requests, { durable: false });
      const addresses: string[] = [];
      const confirms: Array<Promise<void>> = [];
      await server.consume(requests, (m) => {
        if (m === null) return;
        server.ack(m);
        addresses.push(m.properties.replyTo as string);
        confirms.push(confirmed(server, "", m.properties.replyTo as string, `re:${m.content}`, { correlationId: m.properties.correlationId as string }));
      });
      const client = await connOn(clientSide).createChannel();
      const reply = firstFrom(client, "amq.rabbitmq.reply-to");
      client.sendToQueue(requests, Buffer.from("ping"), { replyTo: "amq.rabbitmq.reply-to", correlationId: "d1" });
      const m = await reply;
      assert.equal(m.content.toString(), "re:ping");
      assert.equal(m.properties.correlationId, "d1");
      await Promise.all(confirms);
      assert.match(addresses[0]!, /^amq\.rabbitmq\.reply-to\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, "the key names the requester's worker");
      await client.close();
      // The requester's channel is gone: the reply is dropped on its worker, the publish confirmed (RabbitMQ casts it and forgets).
      await confirmed(server, "", addresses[0]!, "too late");
      await server.close();
    }
  });

  it("a mandatory direct reply-to publish naming no worker is returned NO_ROUTE, and confirmed", async () => {
    const ch = await connOn(workers()[0]!).createConfirmChannel();
    const returned = new Promise<{ fields: { replyText: string } }>((resolve) => ch.on("return", resolve));
    await confirmed(ch, "", "amq.rabbitmq.reply-to.bm9ib2R5.abc", "nobody", { mandatory: true });
    const r = await withTimeout(returned, 5000, "basic.return");
    assert.equal(r.fields.replyText, "NO_ROUTE");
    await ch.close();
  });

  it("when its connection closes, an exclusive queue is gone from both workers", async () => {
    for (const owner of workers()) {
      const c = await connectionOn(owner, `closing-${owner.slice(-2)}`);
      const ch = await c.createChannel();
      const { queue } = await ch.assertQueue("", { exclusive: true });
      await ch.bindQueue(queue, "amq.fanout", "");
      for (const q of await everyAnswer(queue)) assert.equal(q?.["node"], owner);
      await c.close();
      await eventually(async () => (await everyAnswer(queue)).every((q) => q === null), 10_000, `${queue} gone from every worker`);
      // And from each worker's routing: a passive declare on each says NOT_FOUND.
      for (const w of workers()) {
        const check = await connOn(w).createChannel();
        check.on("error", () => {});
        await assert.rejects(check.checkQueue(queue), /404 \(NOT-FOUND\)/);
      }
      const bindings = (await freshGet(p.httpPort, "/api/exchanges/%2F/amq.fanout/bindings/source")).body as Array<{ destination: string }>;
      assert.ok(!bindings.some((b) => b.destination === queue), "its binding gone too");
    }
  });

  it("a worker killed -9: its connections' exclusive queues are gone from the survivor", async () => {
    const [victim, survivor] = workers() as [string, string];
    const ch = await connOn(victim).createChannel();
    const { queue } = await ch.assertQueue("", { exclusive: true });
    for (const q of await everyAnswer(queue)) assert.equal(q?.["node"], victim, `${queue} on both workers`);
    const nodes = (await p.api("GET", "/api/nodes")).json as Array<{ name: string; os_pid: string }>;
    process.kill(Number(nodes.find((n) => n.name === victim)!.os_pid), "SIGKILL");
    await eventually(async () => {
      const check = await connOn(survivor).createChannel();
      check.on("error", () => {});
      try {
        await check.checkQueue(queue);
        await check.close();
        return false;
      } catch (err) {
        return /404 \(NOT-FOUND\)/.test(String(err));
      }
    }, 15_000, `${queue} gone from the survivor`);
    // The survivor and the victim's replacement alike answer 404 once the replacement serves.
    await eventually(async () => (await everyAnswer(queue)).every((q) => q === null), 30_000, `${queue} gone from the API`);
  });
});
