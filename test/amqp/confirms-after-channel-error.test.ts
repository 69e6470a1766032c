// A confirm channel that the broker closes (a publish to a missing exchange: 404) while earlier
// publishes still await their store sync gets no basic.ack after its channel.close: AMQP 0-9-1
// §2.2.4 allows only close-ok on a closing channel, and RabbitMQ 3.10 drops those confirms with
// the channel. Coney wrote them after the close, and a client that had already answered close-ok
// and freed the channel saw a frame on a channel it does not have (rabbitmq-client's own "rpc
// discard late responses" failed so against a spread cluster, whose confirms wait for the copies).
// Real broker with a store (so confirms wait for the fsync), real amqplib client; what the broker
// sends is also read on a relay between them (amqplib reuses the freed channel number, so a stray
// ack shows there as the next channel's confirms going astray).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp, { type ChannelModel } from "amqplib";
import { MethodId } from "../../src/amqp/codec/generated.js";
import { brokerMethodsRelay, type SentMethod } from "../helpers/broker-methods-relay.js";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { withTimeout } from "../helpers/wait.js";

/** Methods the broker sent on a channel after its channel.close and before the channel was opened again. */
class AfterCloseWatch {
  private readonly closing = new Set<number>();
  readonly strays: string[] = [];

  fromBroker(channel: number, m: SentMethod): void {
    if (m.id === MethodId.ChannelClose) this.closing.add(channel);
    else if (m.id === MethodId.ChannelOpenOk) this.closing.delete(channel);
    else if (this.closing.has(channel) && m.id !== MethodId.ChannelCloseOk) this.strays.push(`${m.name} on channel ${channel}`);
  }
}

describe("confirms of a channel closed by an error", () => {
  let broker: TestBroker;
  let relay: Server;
  let conn: ChannelModel;
  const watch = new AfterCloseWatch();
  const dataDir = mkdtempSync(join(tmpdir(), "coney-confirm-close-"));
  const connErrors: string[] = [];

  before(async () => {
    broker = await startTestBroker({ dataDir });
    const relayed = await brokerMethodsRelay(broker.amqpPort, (channel, m) => watch.fromBroker(channel, m));
    relay = relayed.server;
    conn = await amqp.connect(`amqp://guest:guest@127.0.0.1:${relayed.port}`);
    conn.on("error", (e: Error) => connErrors.push(e.message));
  });
  after(async () => {
    await conn.close().catch(() => {});
    relay.close();
    await broker.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("sends no basic.ack after channel.close; the connection and its other channels carry on", async () => {
    const setup = await conn.createChannel();
    await setup.assertQueue("confirm-close-q", { durable: true });
    for (let round = 0; round < 5; round++) {
      const ch = await conn.createConfirmChannel();
      const closed = new Promise<void>((resolve) => ch.on("close", () => resolve()));
      ch.on("error", () => {});
      // Persistent messages into a durable queue: their confirms wait for the store's sync…
      for (let i = 0; i < 20; i++) ch.sendToQueue("confirm-close-q", Buffer.from(`m${round}-${i}`), { persistent: true });
      // …while this one closes the channel at once (404 NOT_FOUND).
      ch.publish("no-such-exchange-here", "k", Buffer.from("x"));
      await closed;
      // A barrier: the store syncs in order, so once this later confirm is in, the closed channel's
      // syncs were done too, and any ack of theirs would have come before it.
      const probe = await conn.createConfirmChannel();
      probe.sendToQueue("confirm-close-q", Buffer.from("probe"), { persistent: true });
      // (A stray ack lands on the reused channel number: amqplib's probe then waits for ever.)
      await withTimeout(probe.waitForConfirms(), 10_000, `round ${round}: the probe's confirm`);
      await probe.close();
      assert.deepEqual(watch.strays, [], `round ${round}: nothing but close-ok after channel.close`);
      assert.deepEqual(connErrors, []);
    }
    await setup.purgeQueue("confirm-close-q");
    await setup.close();
  });
});
