// queue.delete of a queue the deleting channel consumes from: RabbitMQ 3.10 writes the channel's
// delete-ok first and the basic.cancel of its own consumer after it (seen through a frame-logging
// relay). Coney wrote the cancel first; under `coney --workers 2` the delete-ok also waits for the
// other worker (answered-everywhere.ts), so a client that closes its channel when told of the
// cancel — amqplib's own channel_api test "cancelled consumer" — had its close cross the
// delete-ok, and amqplib rejected the deleteQueue it was still waiting for. Real broker (a single
// node and a real `coney --workers 2`), real amqplib, and a relay that reads what the broker sends.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Server } from "node:net";
import amqp, { type Channel, type ChannelModel } from "amqplib";
import { MethodId } from "../../src/amqp/codec/generated.js";
import { brokerMethodsRelay } from "../helpers/broker-methods-relay.js";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { withTimeout } from "../helpers/wait.js";
import { startWorkers, type WorkersProcess } from "../workers/workers-harness.js";

/** A relay in front of `port` noting, per channel, the delete-oks and broker cancels in the order the broker sent them. */
async function orderRelay(port: number): Promise<{ relay: Server; port: number; sent: Map<number, string[]> }> {
  const sent = new Map<number, string[]>();
  const { server, port: relayPort } = await brokerMethodsRelay(port, (channel, m) => {
    if (m.id !== MethodId.QueueDeleteOk && m.id !== MethodId.BasicCancel) return;
    const list = sent.get(channel) ?? [];
    list.push(m.id === MethodId.QueueDeleteOk ? "delete-ok" : "cancel");
    sent.set(channel, list);
  });
  return { relay: server, port: relayPort, sent };
}

/** amqplib's "cancelled consumer": consume, delete the queue, close the channel as soon as the cancel is told. */
async function cancelledConsumer(conn: ChannelModel, queue: string): Promise<{ channel: number; deleted: Promise<unknown> }> {
  const ch: Channel = await conn.createChannel();
  const channel = (ch as unknown as { ch: number }).ch;
  await ch.assertQueue(queue, { durable: false });
  let deleted: Promise<unknown> = Promise.resolve();
  const cancelled = new Promise<void>((resolve, reject) => {
    void ch.consume(queue, (m) => (m === null ? resolve() : reject(new Error("no message was published"))));
  });
  deleted = ch.deleteQueue(queue);
  await withTimeout(cancelled, 10_000, `the cancel of ${queue}'s consumer`);
  await ch.close();
  return { channel, deleted };
}

function suite(name: string, start: () => Promise<{ amqpPort: number; stop: () => Promise<void> }>, queues: number): void {
  describe(name, () => {
    let stop: () => Promise<void>;
    let relayed: Awaited<ReturnType<typeof orderRelay>>;
    let conn: ChannelModel;

    before(async () => {
      const b = await start();
      stop = b.stop;
      relayed = await orderRelay(b.amqpPort);
      conn = await amqp.connect(`amqp://guest:guest@127.0.0.1:${relayed.port}`);
      conn.on("error", () => {});
    });
    after(async () => {
      await conn.close().catch(() => {});
      relayed.relay.close();
      await stop();
    });

    it("answers delete-ok before its own consumer's basic.cancel, so a client closing on the cancel has its delete answered", async () => {
      for (let i = 0; i < queues; i++) {
        const queue = `delete-cancel-order-${i}`;
        const { channel, deleted } = await cancelledConsumer(conn, queue);
        await assert.doesNotReject(deleted, `${queue}: deleteQueue answered before the channel closed`);
        assert.deepEqual(relayed.sent.get(channel), ["delete-ok", "cancel"], `${queue}: the broker's order on channel ${channel}`);
        relayed.sent.delete(channel);
      }
    });
  });
}

suite("queue.delete and its channel's own cancel: a single node", async () => {
  const b: TestBroker = await startTestBroker();
  return { amqpPort: b.amqpPort, stop: () => b.close() };
}, 3);

// Eight names: queues led by either worker, the connection on one of them.
suite("queue.delete and its channel's own cancel: coney --workers 2", async () => {
  const p: WorkersProcess = await startWorkers(["--in-memory"]);
  return { amqpPort: p.amqpPort, stop: () => p.close() };
}, 8);
