// Publisher flow control for AMQP 1.0 senders (incoming-link.ts, publish-flow.ts): while a consumed
// queue a link feeds is more than FLOW_HIGH ready messages behind, the link's credit is not topped
// up (RabbitMQ 4 stops granting credit while a target queue is in flow); once the queue catches up
// it is. A queue nobody consumes never holds its senders. Large messages hold it sooner than for
// AMQP 0-9-1: past LINK_FLOW_HIGH_BYTES ready bytes (i44-perf2).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import type { Connection, Sender } from "rhea";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { close, connect, data, openSender, receive } from "../helpers/rhea-client.js";
import { eventually } from "../helpers/wait.js";
import type { ClientContext } from "../../src/broker/index.js";
import { FLOW_HIGH, FLOW_HIGH_BYTES } from "../../src/broker/index.js";
import { LINK_CREDIT, LINK_CREDIT_BYTES, LINK_FLOW_HIGH_BYTES } from "../../src/amqp1/incoming-link.js";

/**
 * Two round trips on `c` (a receiver's attach answered, twice): every transfer sent before was read
 * by the first, and a top-up it earned — sent at the end of that read, possibly after the first
 * attach's answer — came before the second's answer.
 */
async function roundTrip(c: Connection): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const { receiver, messages } = receive(c, "/queues/flow-barrier", 0);
    await messages;
    receiver.close();
  }
}

/**
 * Sends pre-settled messages while the link has credit, up to `limit`; when it has none, a round
 * trip shows whether a top-up was due. Returns how many were sent once no top-up came (or `limit`).
 */
async function sendUntilHeld(c: Connection, s: Sender, limit: number, body = data("flow")): Promise<number> {
  let sent = 0;
  while (sent < limit) {
    if (s.sendable()) {
      s.send({ body } as never);
      sent++;
      continue;
    }
    await roundTrip(c);
    if (!s.sendable()) break;
  }
  return sent;
}

describe("AMQP 1.0 publisher flow control", () => {
  let broker: TestBroker;
  let ctx: ClientContext;
  const limit = FLOW_HIGH + 4 * LINK_CREDIT;
  const count = (q: string): number => broker.broker.vhost("/").queues.get(q)!.messageCount;

  before(async () => {
    broker = await startTestBroker();
    ctx = { permissions: broker.broker.checkerFor("guest"), owner: null };
    for (const name of ["flow-q", "flow-big", "flow-idle", "flow-sized", "flow-barrier"]) broker.broker.declareQueue(ctx, "/", { name, durable: false, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
  });
  after(async () => {
    await broker.close();
  });

  it("holds a sender's credit while the consumed queue it feeds is behind, and tops it up once it catches up", async () => {
    // A consumer that takes one message and acknowledges nothing: the queue falls behind.
    const a = await amqp.connect(`amqp://guest:guest@127.0.0.1:${broker.amqpPort}`);
    const ch = await a.createChannel();
    await ch.prefetch(1);
    await ch.consume("flow-q", () => undefined, { noAck: false });
    const c = await connect(broker.amqpPort);
    try {
      const s = await openSender(c, "/queues/flow-q", { snd_settle_mode: 1 });
      const sent = await sendUntilHeld(c, s, limit);
      // rhea takes sends past its credit into its own buffer: what reached the broker is what it stored
      // (the round trips saw every written transfer read); the consumer holds one unacknowledged.
      const stored = count("flow-q") + 1;
      assert.ok(sent < limit, `held before ${limit} messages (sent ${sent})`);
      assert.ok(stored > FLOW_HIGH && stored < FLOW_HIGH + 2 * LINK_CREDIT, `held once the queue was ${FLOW_HIGH} behind, within the credit granted (stored ${stored})`);
      // Caught up: the queue is emptied, the held top-up follows, and what rhea kept back arrives.
      await ch.purgeQueue("flow-q");
      await eventually(() => count("flow-q") === sent - stored, 5000, "rhea's buffered messages once the queue caught up");
    } finally {
      await close(c);
      await a.close();
    }
  });

  it("holds a sender of large messages once the consumed queue is LINK_FLOW_HIGH_BYTES behind, far below AMQP 0-9-1's byte limit", async () => {
    const size = 16 * 1024;
    const atBytes = LINK_FLOW_HIGH_BYTES / size;
    // The default limit would first hold past 4,096 such messages, after a further top-up.
    assert.ok(FLOW_HIGH_BYTES / size > atBytes + LINK_CREDIT);
    const a = await amqp.connect(`amqp://guest:guest@127.0.0.1:${broker.amqpPort}`);
    const ch = await a.createChannel();
    await ch.prefetch(1);
    await ch.consume("flow-big", () => undefined, { noAck: false });
    const c = await connect(broker.amqpPort);
    try {
      const s = await openSender(c, "/queues/flow-big", { snd_settle_mode: 1 });
      const sent = await sendUntilHeld(c, s, 4 * LINK_CREDIT, data(Buffer.alloc(size, 7)));
      const stored = count("flow-big") + 1;
      assert.ok(sent < 4 * LINK_CREDIT, `held (sent ${sent})`);
      // Held from the first top-up on: the first grant's credit is all that reached the queue.
      assert.ok(stored > atBytes && stored <= atBytes + LINK_CREDIT, `held once ${LINK_FLOW_HIGH_BYTES} bytes behind (stored ${stored})`);
      await ch.purgeQueue("flow-big");
      await eventually(() => count("flow-big") === sent - stored, 5000, "rhea's buffered messages once the queue caught up");
    } finally {
      await close(c);
      await a.close();
    }
  });

  it("grants a sender of large messages credit by bytes: LINK_CREDIT_BYTES in flight, not LINK_CREDIT messages", async () => {
    const size = 16 * 1024;
    const bySize = LINK_CREDIT_BYTES / size;
    assert.ok(bySize < LINK_CREDIT);
    const c = await connect(broker.amqpPort);
    try {
      const s = await openSender(c, "/queues/flow-sized", { snd_settle_mode: 1 });
      // The first grant knows no size (LINK_CREDIT); the top-up once half of it is used is sized by bytes.
      const body = data(Buffer.alloc(size, 3));
      const n = LINK_CREDIT / 2 + 10;
      for (let i = 0; i < n; i++) s.send({ body } as never);
      await roundTrip(c);
      const credit = (s as unknown as { credit: number }).credit;
      assert.ok(credit > 0 && credit <= bySize, `credit after the top-up ${credit}, at most ${bySize}`);
      await eventually(() => count("flow-sized") === n, 5000, "every sent message stored");
    } finally {
      await close(c);
    }
  });

  it("never holds a sender to a queue nobody consumes", async () => {
    const c = await connect(broker.amqpPort);
    try {
      const s = await openSender(c, "/queues/flow-idle", { snd_settle_mode: 1 });
      assert.equal(await sendUntilHeld(c, s, limit), limit);
      await eventually(() => count("flow-idle") === limit, 5000, "every sent message stored");
    } finally {
      await close(c);
    }
  });
});
