// `coney --workers 2` spreads queues: each queue is led by the worker leading its name's group,
// and a client on either worker publishes to and consumes from every queue, with confirms and
// prefetch as on one node. A worker killed -9 stops only its own queues: publishes to them are
// nacked (never confirmed) until a live worker (or its replacement) serves them from their groups'
// stores, the other worker's queues keep confirming, and no confirmed message is lost. Real process trees, real amqplib clients.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import amqp, { type ChannelModel } from "amqplib";
import { eventually, withTimeout } from "../helpers/wait.js";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";
import { queueGroupOf } from "../../src/broker/index.js";

/** A GET on a new TCP connection each time: the primary hands each connection to a worker. */
function freshGet(port: number, path: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path, agent: false, auth: "guest:guest" }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve(JSON.parse(body)));
    });
    req.on("error", reject);
  });
}

const QUEUES = ["sq-a", "sq-b", "sq-c", "sq-d", "sq-e", "sq-f", "sq-g", "sq-h"];

describe("coney --workers 2 spreads queues over the workers", () => {
  let p: WorkersProcess;
  const open: ChannelModel[] = [];
  /** Connections by the worker they landed on ("…-w0@host", "…-w1@host"). */
  const onWorker = new Map<string, ChannelModel[]>();

  before(async () => {
    p = await startWorkers();
    // Connections land where the primary hands them: open named ones until both workers have two.
    for (let i = 0; i < 40 && ![...onWorker.values()].every((l) => l.length >= 2) || onWorker.size < 2; i++) {
      const name = `spread-${i}`;
      const c = await amqp.connect(p.amqpUrl, { clientProperties: { connection_name: name } });
      c.on("error", () => {});
      open.push(c);
      let node: string | undefined;
      // Either worker lists every worker's connections, each with its node.
      await eventually(async () => {
        const list = (await freshGet(p.httpPort, "/api/connections")) as Array<{ node: string; client_properties: { connection_name?: string } }>;
        node = list.find((x) => x.client_properties.connection_name === name)?.node;
        return node !== undefined;
      }, 10_000, `connection ${name} in /api/connections`);
      onWorker.set(node!, [...(onWorker.get(node!) ?? []), c]);
    }
    assert.equal(onWorker.size, 2, "connections on both workers");
  });
  after(async () => {
    // Those on the killed worker are gone: closed in parallel, none waited on for long.
    await Promise.all(open.map((c) => withTimeout(c.close(), 2000, "a connection's close").catch(() => {})));
    await p.close();
  });

  const workerNames = (): string[] => [...onWorker.keys()].sort();
  // A queue's group is its name hash mod 16; the primary's first table gives group g to worker g mod 2.
  const leaderOf = (q: string): string => workerNames()[queueGroupOf("/", q, 16) % 2]!;
  const connOn = (worker: string, i = 0): ChannelModel => onWorker.get(worker)![i]!;
  const otherThan = (worker: string): string => workerNames().find((w) => w !== worker)!;

  it("places each queue on the worker its name hashes to, and both workers say so", async () => {
    const ch = await connOn(workerNames()[0]!).createChannel();
    for (const q of QUEUES) await ch.assertQueue(q, { durable: true });
    await ch.close();
    assert.ok(new Set(QUEUES.map(leaderOf)).size === 2, "the queues lead on both workers");
    // Asked several times: the answer comes from either worker, and both give every leader.
    for (let i = 0; i < 4; i++) {
      await eventually(async () => {
        const list = (await p.api("GET", "/api/queues/%2F")).json as Array<{ name: string; node: string }>;
        return QUEUES.every((q) => list.find((x) => x.name === q)?.node === leaderOf(q));
      }, 10_000, "every queue with its leader in /api/queues");
    }
  });

  it("publishes with confirms from either worker to every queue, and consumes under prefetch from either", async () => {
    for (const worker of workerNames()) {
      const ch = await connOn(worker).createConfirmChannel();
      for (const q of QUEUES) for (let k = 0; k < 20; k++) ch.sendToQueue(q, Buffer.from(`${worker}:${k}`), { persistent: true });
      await ch.waitForConfirms();
      await ch.close();
    }
    for (const q of QUEUES) {
      // Consumed on the worker that does not lead it: every delivery crossed the link.
      const consumer = connOn(otherThan(leaderOf(q)), 1);
      const ch = await consumer.createChannel();
      await ch.prefetch(5);
      let unacked = 0;
      let most = 0;
      let acked = 0;
      const bodies: string[] = [];
      await new Promise<void>((resolve, reject) => {
        void ch.consume(q, (m) => {
          if (m === null) return reject(new Error(`${q}: consumer cancelled`));
          unacked++;
          most = Math.max(most, unacked);
          bodies.push(m.content.toString());
          // Acked a turn later, so prefetch is what bounds the deliveries in flight.
          setImmediate(() => {
            unacked--;
            ch.ack(m);
            if (++acked === 40) resolve();
          });
        });
      });
      assert.ok(most <= 5, `${q}: at most prefetch (5) unacked, saw ${most}`);
      // Per publisher, in its order: 0..19 from each worker's channel.
      for (const w of workerNames()) assert.deepEqual(bodies.filter((b) => b.startsWith(`${w}:`)), Array.from({ length: 20 }, (_, k) => `${w}:${k}`), `${q}: ${w}'s messages in order`);
      await ch.close();
    }
  });

  it("basic.get, purge and a passive declare's count reach a queue led by the other worker", async () => {
    const q = QUEUES[0]!;
    const ch = await connOn(otherThan(leaderOf(q))).createConfirmChannel();
    ch.sendToQueue(q, Buffer.from("one"), { persistent: true });
    ch.sendToQueue(q, Buffer.from("two"), { persistent: true });
    await ch.waitForConfirms();
    const got = await ch.get(q, { noAck: false });
    assert.ok(got !== false, "a message");
    assert.equal(got.content.toString(), "one");
    ch.ack(got);
    await eventually(async () => (await ch.checkQueue(q)).messageCount === 1, 5000, "the passive declare's count");
    assert.equal((await ch.purgeQueue(q)).messageCount, 1);
    await ch.close();
  });

  it("a worker killed -9 stops only its queues, no confirmed message is lost, and they are served again", async () => {
    const victim = workerNames()[0]!;
    const survivor = otherThan(victim);
    const theirs = QUEUES.filter((q) => leaderOf(q) === victim);
    const ours = QUEUES.filter((q) => leaderOf(q) === survivor);
    const pub = await connOn(survivor, 0).createConfirmChannel();
    for (const q of QUEUES) for (let k = 0; k < 50; k++) pub.sendToQueue(q, Buffer.from(`before-${k}`), { persistent: true });
    await pub.waitForConfirms();
    const nodes = (await p.api("GET", "/api/nodes")).json as Array<{ name: string; os_pid: string }>;
    process.kill(Number(nodes.find((n) => n.name === victim)!.os_pid), "SIGKILL");
    await p.logLine((l) => l.msg === "worker exited" || l.msg === "worker started", "the primary seeing the kill", 10_000, p.lines.length).catch(() => undefined);
    // The survivor's own queues keep confirming at once.
    for (const q of ours) pub.sendToQueue(q, Buffer.from("during"), { persistent: true });
    await withTimeout(pub.waitForConfirms(), 5000, "confirms from the surviving worker's queues");
    // The victim's queues serve again within 15 s: a publish to each, from the surviving worker
    // (so over the link to the replacement), is confirmed.
    const survivorConn = connOn(survivor, 1);
    await eventually(async () => {
      const ch = await survivorConn.createConfirmChannel();
      ch.on("error", () => {});
      try {
        for (const q of theirs) ch.sendToQueue(q, Buffer.from("after"), { persistent: true });
        return await withTimeout(ch.waitForConfirms().then(() => true, () => false), 3000, "confirms").catch(() => false);
      } finally {
        await ch.close().catch(() => {});
      }
    }, 15_000, "the killed worker's queues confirming again").catch((err: Error) => {
      // What the processes said meanwhile, for whoever reads a failure.
      throw new Error(`${err.message}\n${p.lines.slice(-25).map((l) => JSON.stringify(l)).join("\n")}`);
    });
    const check = await survivorConn.createChannel();
    for (const q of theirs) assert.ok((await check.checkQueue(q)).messageCount >= 51, `${q}: the 50 confirmed before the kill are there`);
    for (const q of ours) assert.ok((await check.checkQueue(q)).messageCount >= 51, `${q}: 50 + 1 confirmed`);
    await check.close();
  });
});
