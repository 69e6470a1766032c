// Streams under `coney --workers 2` (preview), over AMQP 0-9-1: a stream is declared through
// either worker and created on its leader with its arguments; a client on the worker that does
// not lead it publishes with confirms and consumes with x-stream-offset (first, last, next, an
// offset, a timestamp, an interval) under its prefetch, each delivery with its x-stream-offset
// header; RabbitMQ's refusals come from either worker alike. A leader killed -9 cancels the other
// worker's consumers (consumer cancel notification); after its restart every confirmed message is
// there. Real process tree, real amqplib clients.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type Channel, type ChannelModel, type ConsumeMessage } from "amqplib";
import { eventually, withTimeout } from "../helpers/wait.js";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";
import { freshGet, nodeOfConnection, request } from "./worker-landing.js";
import http from "node:http";
import { bodyOf, close as closeAmqp1, connect as connectAmqp1, receive, rhea } from "../helpers/rhea-client.js";
import { queueGroupOf } from "../../src/broker/index.js";

/** The first name `prefix-<n>` that worker `w` of 2 leads. */
function ledBy(w: number, prefix: string): string {
  for (let i = 0; ; i++) if (queueGroupOf("/", `${prefix}-${i}`, 2) === w) return `${prefix}-${i}`;
}

/** Consumes `name` with `args` and prefetch until `n` arrived (acked as they come); returns them. */
async function consumeN(ch: Channel, name: string, n: number, args: Record<string, unknown>, prefetch = 10): Promise<ConsumeMessage[]> {
  await ch.prefetch(prefetch);
  const got: ConsumeMessage[] = [];
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const { consumerTag } = await ch.consume(name, (m) => {
    if (m === null) return;
    got.push(m);
    ch.ack(m);
    if (got.length === n) done();
  }, { arguments: args });
  await withTimeout(all, 10_000, `${n} deliveries from ${name} with ${JSON.stringify(args)}`);
  await ch.cancel(consumerTag);
  return got;
}

const offsetOf = (m: ConsumeMessage): number => Number(m.properties.headers!["x-stream-offset"]);

describe("streams across the workers of coney --workers 2 (AMQP 0-9-1)", () => {
  let p: WorkersProcess;
  const open: ChannelModel[] = [];
  const onWorker = new Map<string, ChannelModel[]>();

  let named = 0;
  /** A new connection and the worker it landed on (each worker lists its own connections). */
  async function connect(): Promise<[ChannelModel, string]> {
    const name = `streams-${named++}`;
    const c = await amqp.connect(p.amqpUrl, { clientProperties: { connection_name: name } });
    c.on("error", () => {});
    open.push(c);
    const node = await nodeOfConnection(p.httpPort, name);
    return [c, node];
  }
  /** A new connection on worker `w` (connections land round-robin: a few tries at most). */
  async function connectTo(w: number): Promise<ChannelModel> {
    for (let i = 0; i < 20; i++) {
      const [c, node] = await connect();
      if (node === workers()[w]) return c;
    }
    throw new Error(`no connection landed on w${w}`);
  }

  before(async () => {
    p = await startWorkers();
    for (let i = 0; i < 40 && (onWorker.size < 2 || ![...onWorker.values()].every((l) => l.length >= 2)); i++) {
      const [c, node] = await connect();
      onWorker.set(node, [...(onWorker.get(node) ?? []), c]);
    }
    assert.equal(onWorker.size, 2, "connections on both workers");
  });
  after(async () => {
    await Promise.all(open.map((c) => withTimeout(c.close(), 2000, "a connection's close").catch(() => {})));
    await p.close();
  });

  const workers = (): string[] => [...onWorker.keys()].sort();
  const connOn = (w: number, i = 0): ChannelModel => onWorker.get(workers()[w]!)![i]!;
  /** The worker that does not lead `name`. */
  const nonLeader = (name: string): number => 1 - queueGroupOf("/", name, 2);

  for (const leader of [0, 1]) {
    const other = 1 - leader;
    it(`declares a stream led by w${leader} through w${other}, publishes there with confirms and consumes there from every offset`, async () => {
      const s = ledBy(leader, `amqp-stream-w${leader}`);
      const ch = await connOn(other).createChannel();
      const args = { "x-queue-type": "stream", "x-max-length-bytes": 50_000_000, "x-stream-max-segment-size-bytes": 5_000_000, "x-max-age": "7D" };
      await ch.assertQueue(s, { durable: true, arguments: args });
      // Created on its leader with its arguments, and every worker says so.
      for (let i = 0; i < 4; i++) {
        await eventually(async () => {
          const r = (await freshGet(p.httpPort, `/api/queues/%2F/${s}`)) as { node?: string; type?: string; arguments?: Record<string, unknown> };
          return r.node === workers()[leader] && r.type === "stream" && r.arguments?.["x-max-length-bytes"] === 50_000_000 && r.arguments?.["x-max-age"] === "7D";
        }, 10_000, `${s} with its leader and arguments in /api/queues/%2F/${s}`);
      }
      // Publish 10 from the other worker, with confirms.
      const pub = await connOn(other).createConfirmChannel();
      const before = { "!": "timestamp", value: Math.floor(Date.now() / 1000) - 1 };
      for (let i = 0; i < 10; i++) pub.sendToQueue(s, Buffer.from(`m${i}`), { headers: { n: i } });
      await pub.waitForConfirms();
      await eventually(async () => ((await freshGet(p.httpPort, `/api/queues/%2F/${s}`)) as { messages?: number }).messages === 10, 10_000, `${s} counting 10 messages`);
      // The stream's record, from either worker: its leader, members, online, and the log's offsets.
      for (let i = 0; i < 4; i++) {
        await eventually(async () => {
          const r = (await freshGet(p.httpPort, `/api/queues/%2F/${s}`)) as Record<string, unknown>;
          return r["leader"] === workers()[leader] && JSON.stringify(r["members"]) === JSON.stringify([workers()[leader]]) && JSON.stringify(r["online"]) === JSON.stringify([workers()[leader]]) && r["committed_offset"] === 9 && r["first_offset"] === 0 && r["last_offset"] === 9 && r["memory"] === undefined;
        }, 10_000, `${s}'s stream fields in /api/queues/%2F/${s}`);
      }

      const c2 = await connOn(other).createChannel();
      const first = await consumeN(c2, s, 10, { "x-stream-offset": "first" });
      assert.deepEqual(first.map(offsetOf), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], "x-stream-offset headers in order");
      assert.deepEqual(first.map((m) => m.content.toString()), Array.from({ length: 10 }, (_, i) => `m${i}`));
      assert.equal(first[3]!.properties.headers!["n"], 3, "the publisher's headers cross");
      assert.deepEqual((await consumeN(c2, s, 4, { "x-stream-offset": 6 })).map(offsetOf), [6, 7, 8, 9], "offset 6");
      assert.deepEqual((await consumeN(c2, s, 10, { "x-stream-offset": before })).map(offsetOf)[0], 0, "a timestamp before the first");
      assert.deepEqual((await consumeN(c2, s, 10, { "x-stream-offset": "1h" })).map(offsetOf)[0], 0, "an interval back from now");
      const last = await consumeN(c2, s, 1, { "x-stream-offset": "last" });
      assert.ok(offsetOf(last[0]!) <= 9, "last: the last chunk's first message");

      // next: only what comes after the consume.
      await c2.prefetch(5);
      const next: ConsumeMessage[] = [];
      let got!: () => void;
      const arrived = new Promise<void>((r) => (got = r));
      const { consumerTag } = await c2.consume(s, (m) => {
        if (m === null) return;
        next.push(m);
        c2.ack(m);
        got();
      }, { arguments: { "x-stream-offset": "next" } });
      pub.sendToQueue(s, Buffer.from("after"));
      await pub.waitForConfirms();
      await withTimeout(arrived, 10_000, "the message after a next consume");
      assert.equal(next[0]!.content.toString(), "after");
      assert.equal(offsetOf(next[0]!), 10);
      await c2.cancel(consumerTag);
      await Promise.all([ch.close(), pub.close(), c2.close()]);
    });
  }

  it("declares streams over HTTP and by a definitions import on one worker: each created on its leader with its arguments", async () => {
    // One kept-alive socket: every request reaches the worker that accepted it, which leads one of each pair.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const viaPut = [ledBy(0, "http-stream"), ledBy(1, "http-stream")];
    for (const name of viaPut) {
      const r = await request(p.httpPort, "PUT", `/api/queues/%2F/${name}`, { durable: true, arguments: { "x-queue-type": "stream", "x-max-length-bytes": 1_000_000 } }, agent);
      assert.ok(r.status === 201 || r.status === 204, `PUT ${name}: ${r.status} ${JSON.stringify(r.json)}`);
    }
    const viaImport = [ledBy(0, "defs-stream"), ledBy(1, "defs-stream")];
    const defs = { queues: viaImport.map((name) => ({ name, vhost: "/", durable: true, auto_delete: false, arguments: { "x-queue-type": "stream", "x-max-age": "1D" } })) };
    const imported = await request(p.httpPort, "POST", "/api/definitions", defs, agent);
    assert.ok(imported.status === 201 || imported.status === 204, `import: ${imported.status} ${JSON.stringify(imported.json)}`);
    agent.destroy();
    for (const [name, arg, value] of [...viaPut.map((n) => [n, "x-max-length-bytes", 1_000_000] as const), ...viaImport.map((n) => [n, "x-max-age", "1D"] as const)]) {
      const leader = workers()[queueGroupOf("/", name, 2)];
      for (let i = 0; i < 4; i++) {
        await eventually(async () => {
          const r = (await freshGet(p.httpPort, `/api/queues/%2F/${name}`)) as { node?: string; type?: string; arguments?: Record<string, unknown> };
          return r.node === leader && r.type === "stream" && r.arguments?.[arg] === value;
        }, 10_000, `${name} on ${leader} with ${arg} from either worker`);
      }
      // The leader holds the stream itself: a publish through either worker is confirmed and counted.
      const ch = await connOn(nonLeader(name)).createConfirmChannel();
      ch.sendToQueue(name, Buffer.from("x"));
      await ch.waitForConfirms();
      await ch.close();
      await eventually(async () => ((await freshGet(p.httpPort, `/api/queues/%2F/${name}`)) as { messages?: number }).messages === 1, 10_000, `${name} holding the message`);
    }
  });

  it("AMQP 1.0: a receiver reads a stream led by either worker from its first offset, each message annotated x-stream-offset", async () => {
    // One AMQP 1.0 connection, two streams led by different workers: one of them is led elsewhere.
    const names = [ledBy(0, "amqp1-stream"), ledBy(1, "amqp1-stream")];
    const pub = await connOn(0).createConfirmChannel();
    for (const name of names) {
      await pub.assertQueue(name, { durable: true, arguments: { "x-queue-type": "stream" } });
      for (let i = 0; i < 12; i++) pub.sendToQueue(name, Buffer.from(`${name}-${i}`));
    }
    await pub.waitForConfirms();
    await pub.close();
    const c = await connectAmqp1(p.amqpPort);
    for (const name of names) {
      const filter = { "rabbitmq:stream-offset-spec": rhea.types.wrap_described("first", "rabbitmq:stream-offset-spec") };
      const { messages } = receive(c, `/queues/${name}`, 12, { source: { address: `/queues/${name}`, filter }, credit_window: 5, autoaccept: true } as never);
      const got = await withTimeout(messages, 10_000, `12 from ${name} over AMQP 1.0`);
      assert.deepEqual(got.map((r) => bodyOf(r.message).toString()), Array.from({ length: 12 }, (_, i) => `${name}-${i}`));
      assert.deepEqual(got.map((r) => Number(r.message.message_annotations?.["x-stream-offset"])), Array.from({ length: 12 }, (_, i) => i));
    }
    await closeAmqp1(c);
  });

  it("keeps a remote stream consumer within its prefetch: never more unacknowledged than asked", async () => {
    const s = ledBy(0, "prefetch-stream");
    const ch = await connOn(1).createConfirmChannel();
    await ch.assertQueue(s, { durable: true, arguments: { "x-queue-type": "stream" } });
    for (let i = 0; i < 30; i++) ch.sendToQueue(s, Buffer.from(`p${i}`));
    await ch.waitForConfirms();
    const c = await connOn(1).createChannel();
    await c.prefetch(3);
    const held: ConsumeMessage[] = [];
    let most = 0;
    let count = 0;
    let done!: () => void;
    const all = new Promise<void>((r) => (done = r));
    await c.consume(s, (m) => {
      if (m === null) return;
      held.push(m);
      count++;
      most = Math.max(most, held.length);
      if (count === 30) done();
      // Acked late, in a batch: a leader that ignored the window would have sent more meanwhile.
      if (held.length === 3) setTimeout(() => count < 30 && held.splice(0).forEach((x) => c.ack(x)), 30);
    }, { arguments: { "x-stream-offset": "first" } });
    await withTimeout(all, 10_000, "30 deliveries under prefetch 3");
    assert.equal(most, 3, "at most the prefetch unacknowledged at once");
    await Promise.all([ch.close(), c.close()]);
  });

  it("refuses on the non-leading worker what RabbitMQ refuses of a stream, with its codes", async () => {
    const s = ledBy(0, "refusals-stream");
    const setup = await connOn(1).createChannel();
    await setup.assertQueue(s, { durable: true, arguments: { "x-queue-type": "stream" } });
    // NOT_IMPLEMENTED closes the connection (a hard error): each refusal gets its own on w1.
    const expectRefused = async (what: (ch: Channel) => Promise<unknown>, code: number, text: RegExp): Promise<void> => {
      const conn = await connectTo(1);
      const ch = await conn.createChannel();
      ch.on("error", () => {});
      const closed = new Promise<Error | undefined>((r) => (code === 540 ? conn : ch).once("error", r));
      what(ch).catch(() => {});
      const err = (await withTimeout(closed, 10_000, `the refusal ${text}`)) as (Error & { code?: number }) | undefined;
      assert.ok(err !== undefined, "closed by the server");
      assert.equal(err.code, code, err.message);
      assert.match(err.message, text);
    };
    await expectRefused((ch) => ch.consume(s, () => {}, { arguments: { "x-stream-offset": "first" } }), 406, /consumer prefetch count is not set/);
    await expectRefused(async (ch) => {
      await ch.prefetch(5);
      return ch.consume(s, () => {}, { noAck: true });
    }, 540, /automatic acknowledgement not supported by stream queues/);
    await expectRefused(async (ch) => {
      await ch.prefetch(5);
      return ch.consume(s, () => {}, { arguments: { "x-stream-offset": "sideways" } });
    }, 406, /invalid x-stream-offset/);
    await expectRefused((ch) => ch.get(s), 540, /basic.get not supported by stream queues/);
    await expectRefused((ch) => ch.purgeQueue(s), 540, /queue.purge not supported by stream queues/);
    await setup.close();
  });

  it("a stream's leader killed -9: the other worker's consumers are cancelled, and after its restart every confirmed message is there", async () => {
    const s = ledBy(1, "kill-stream");
    const pub = await connOn(0).createConfirmChannel();
    await pub.assertQueue(s, { durable: true, arguments: { "x-queue-type": "stream" } });
    for (let i = 0; i < 50; i++) pub.sendToQueue(s, Buffer.from(`k${i}`));
    await pub.waitForConfirms();
    const c = await connOn(0).createChannel();
    await c.prefetch(10);
    let cancelled!: () => void;
    const wasCancelled = new Promise<void>((r) => (cancelled = r));
    let seen = 0;
    await c.consume(s, (m) => {
      if (m === null) return cancelled();
      seen++;
      c.ack(m);
    }, { arguments: { "x-stream-offset": "first" } });
    await eventually(() => seen === 50, 10_000, "the 50 delivered before the kill");
    const nodes = (await p.api("GET", "/api/nodes")).json as Array<{ name: string; os_pid: string }>;
    process.kill(Number(nodes.find((n) => n.name === workers()[1])!.os_pid), "SIGKILL");
    await withTimeout(wasCancelled, 10_000, "the consumer's cancel notification");
    // After the restart the stream is there again, with the 50 confirmed.
    let back: ConsumeMessage[] = [];
    await eventually(async () => {
      const ch = await connOn(0).createChannel();
      ch.on("error", () => {});
      try {
        back = await consumeN(ch, s, 50, { "x-stream-offset": "first" });
        await ch.close();
        return true;
      } catch {
        return false;
      }
    }, 30_000, "the stream served again after its leader's restart");
    assert.deepEqual(back.map((m) => m.content.toString()), Array.from({ length: 50 }, (_, i) => `k${i}`));
    await pub.close().catch(() => {});
  });
});
