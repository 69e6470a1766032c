// A spread cluster (`--cluster-mode spread`): an RPC client's exclusive reply queue and direct
// reply-to reach across nodes (issue 42). An exclusive queue stays on its connection's node (also
// under a spreading locator); every other node routes to it (default exchange and bindings, with
// confirms) and refuses it to its own clients with RabbitMQ's RESOURCE_LOCKED; it is never claimed
// in etcd and goes everywhere when its connection closes or its node is killed -9. A direct
// reply-to reply published on a third node reaches the requester. Three real nodes on a real etcd.
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { Channel, ConfirmChannel, ConsumeMessage, Options } from "amqplib";
import { spreadCluster } from "./spread-fixture.js";
import { eventually, withTimeout } from "../helpers/wait.js";

const locked = (q: string): RegExp =>
  new RegExp(
    `405 \\(RESOURCE-LOCKED\\) with message "RESOURCE_LOCKED - cannot obtain exclusive access to locked queue '${q.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}' in vhost '/'\\. It could be originally declared on another connection or the exclusive property value does not match that of the original declaration\\."`,
  );

/** Resolves with the first `n` messages `ch` delivers from `queue`. */
async function firstFrom(ch: Channel, queue: string, n = 1): Promise<ConsumeMessage[]> {
  const got: ConsumeMessage[] = [];
  let resolve!: () => void;
  const all = new Promise<void>((r) => (resolve = r));
  await ch.consume(queue, (m) => {
    if (m === null) return;
    got.push(m);
    if (got.length === n) resolve();
  }, { noAck: true });
  await withTimeout(all, 10_000, `${n} message(s) from ${queue}`);
  return got;
}

const confirmed = (ch: ConfirmChannel, exchange: string, key: string, body: string, opts: Options.Publish = {}): Promise<void> =>
  withTimeout(new Promise<void>((resolve, reject) => ch.publish(exchange, key, Buffer.from(body), opts, (err) => (err ? reject(err) : resolve()))), 10_000, `the confirm of ${body}`);

describe("a spread cluster: exclusive queues and direct reply-to across nodes", () => {
  const sc = spreadCluster();
  type QueueRecord = { node: string; exclusive: boolean };

  sc.it("an exclusive queue stays on its connection's node, is routed to from the others and locked to their clients", async () => {
    const owner = await sc.connect(0);
    const och = await owner.createChannel();
    // A spreading locator is ignored for an exclusive queue (RabbitMQ places exclusive queues locally).
    const { queue } = await och.assertQueue("", { exclusive: true, arguments: { "x-queue-master-locator": "min-masters" } });
    await och.bindQueue(queue, "amq.direct", "spread-ex-key");
    for (let i = 0; i < 3; i++) {
      await eventually(async () => {
        const r = await sc.api(i, "GET", `/api/queues/%2F/${queue}`);
        const q = r.json as QueueRecord;
        return r.status === 200 && q.node === sc.node(0).name && q.exclusive === true;
      }, 10_000, `${queue} known on node${i} as node0's exclusive queue`);
    }
    assert.equal(await sc.cluster.etcdKey(`spread/queues/%2F/${encodeURIComponent(queue)}`), null, "an exclusive queue is not claimed in etcd");
    const received = firstFrom(och, queue, 2);
    const other = await sc.connect(1);
    const pch = await other.createConfirmChannel();
    await confirmed(pch, "", queue, "by-name");
    await confirmed(pch, "amq.direct", "spread-ex-key", "by-binding");
    assert.deepEqual((await received).map((m) => m.content.toString()), ["by-name", "by-binding"]);
    // Every way another node's client can touch it is refused with RabbitMQ's code and text.
    const attempts: Array<[string, (ch: Channel) => Promise<unknown>]> = [
      ["declare", (ch) => ch.assertQueue(queue, { exclusive: true })],
      ["passive declare", (ch) => ch.checkQueue(queue)],
      ["consume", (ch) => ch.consume(queue, () => {})],
      ["get", (ch) => ch.get(queue)],
      ["purge", (ch) => ch.purgeQueue(queue)],
      ["delete", (ch) => ch.deleteQueue(queue)],
      ["bind", (ch) => ch.bindQueue(queue, "amq.fanout", "")],
    ];
    for (const [what, attempt] of attempts) {
      const ch = await other.createChannel();
      ch.on("error", () => {});
      await assert.rejects(attempt(ch), locked(queue), what);
    }
    // The owner closes its connection: the queue goes on every node.
    await owner.close();
    for (let i = 0; i < 3; i++) await eventually(async () => (await sc.api(i, "GET", `/api/queues/%2F/${queue}`)).status === 404, 10_000, `${queue} gone on node${i}`);
    await pch.close();
  });

  sc.it("declare-ok comes once every node knows the queue: a publish made through another node right after it is routed", async () => {
    // The workers' rule (answered once everyone knows): without it a server on another node could
    // receive a request before it knew the reply queue, and drop the reply as unroutable.
    const owner = await (await sc.connect(0)).createChannel();
    const other = await (await sc.connect(1)).createConfirmChannel();
    const returned: string[] = [];
    other.on("return", (m: ConsumeMessage) => returned.push(m.fields.routingKey));
    const names: string[] = [];
    for (let i = 0; i < 10; i++) {
      const { queue } = await owner.assertQueue("", { exclusive: true });
      names.push(queue);
      await confirmed(other, "", queue, `right-after-${i}`, { mandatory: true });
    }
    // A return comes before its confirm (AMQP 0-9-1): none came, so every publish was routed.
    assert.deepEqual(returned, [], "no publish returned as unroutable");
    for (const q of names) assert.equal((await owner.checkQueue(q)).messageCount, 1, `${q} holds its message`);
    await owner.close();
    await other.close();
  });

  sc.it("direct reply-to: a reply published through a third node reaches the requester", async () => {
    const rpc = await (await sc.connect(1)).createChannel();
    await rpc.assertQueue("spread-rpc", { durable: false });
    await sc.seenEverywhere("spread-rpc", 200);
    // The server on node2 answers every request to its reply-to.
    const server = await (await sc.connect(2)).createConfirmChannel();
    await server.consume("spread-rpc", (m) => {
      if (m === null) return;
      server.publish("", m.properties.replyTo as string, Buffer.from(`re:${m.content.toString()}`), { correlationId: m.properties.correlationId as string });
      server.ack(m);
    });
    // The requester on node0.
    const requester = await (await sc.connect(0)).createChannel();
    const replies = firstFrom(requester, "amq.rabbitmq.reply-to", 2);
    requester.sendToQueue("spread-rpc", Buffer.from("ping-1"), { replyTo: "amq.rabbitmq.reply-to", correlationId: "c1" });
    requester.sendToQueue("spread-rpc", Buffer.from("ping-2"), { replyTo: "amq.rabbitmq.reply-to", correlationId: "c2" });
    assert.deepEqual((await replies).map((m) => [m.content.toString(), m.properties.correlationId]), [["re:ping-1", "c1"], ["re:ping-2", "c2"]]);
  });

  // Last: it kills node2.
  sc.it("an exclusive queue goes on every node when its owner's node is killed -9", async () => {
    const owner = await sc.connect(2);
    const { queue } = await (await owner.createChannel()).assertQueue("", { exclusive: true });
    for (let i = 0; i < 2; i++) await eventually(async () => ((await sc.api(i, "GET", `/api/queues/%2F/${queue}`)).json as QueueRecord | null)?.exclusive === true, 10_000, `${queue} known on node${i}`);
    await sc.cluster.kill(sc.node(2));
    for (let i = 0; i < 2; i++) await eventually(async () => (await sc.api(i, "GET", `/api/queues/%2F/${queue}`)).status === 404, 10_000, `${queue} gone on node${i}`);
    // A publish to it through a live node has no route now.
    const ch = await (await sc.connect(0)).createConfirmChannel();
    const returned = new Promise<string>((resolve) => ch.on("return", (m: ConsumeMessage) => resolve(m.fields.routingKey)));
    await confirmed(ch, "", queue, "to-a-dead-owner", { mandatory: true });
    assert.equal(await withTimeout(returned, 5000, "the basic.return"), queue);
  });
});
