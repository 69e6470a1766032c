// A session's incoming window is enforced (part 2 §2.5.6): a peer that sends transfers past it
// has its session ended with amqp:session:window-violation, what the window covered is stored,
// and other connections are not disturbed. While a memory alarm is on the window is not reopened
// (RabbitMQ 4 closes it then), which is what makes a violation reachable here however the
// broker's reads cut the burst. Also: transactions are refused as RabbitMQ 4 refuses them — a
// link to the coordinator target is detached with amqp:not-implemented.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { close, connect, data, openSender, sendAll } from "../helpers/rhea-client.js";
import { eventually } from "../helpers/wait.js";
import { opening, raw, senderAttach, settledTransfer, target, u } from "../helpers/amqp1-raw.js";
import { PERFORMATIVE, performativeFrame } from "../../src/amqp1/performatives.js";
import { FRAME_AMQP } from "../../src/amqp1/amqp1-frames.js";

const WINDOW = 16;

describe("AMQP 1.0 session window and transactions", () => {
  let broker: TestBroker;
  const count = (name: string): number => broker.broker.vhost("/").queues.get(name)!.messageCount;

  before(async () => {
    broker = await startTestBroker({ amqp1MaxIncomingWindow: WINDOW });
    const ctx = { permissions: broker.broker.checkerFor("guest"), owner: null };
    broker.broker.declareQueue(ctx, "/", { name: "windowed", durable: false, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
  });
  after(async () => {
    await broker.close();
  });

  it("transfers past the incoming window end the session with amqp:session:window-violation; the window's worth is stored", async () => {
    const c = raw(broker.amqpPort);
    c.socket.write(Buffer.concat([...opening(), senderAttach("overrunner", target("/queues/windowed"))]));
    await eventually(() => c.received().includes("/queues/windowed"), 5000, "the attach answered");
    broker.alarms.setLimits({ memHighWatermark: 1e-9 });
    try {
      c.socket.write(Buffer.concat(Array.from({ length: WINDOW + 8 }, (_, i) => settledTransfer(i))));
      await eventually(() => c.received().includes("amqp:session:window-violation"), 5000, "the session's end");
      assert.equal(count("windowed"), WINDOW);
      // Only the session ended: the connection is open (no close frame came).
      assert.equal(c.received().includes("amqp:connection"), false);
      assert.equal(c.socket.destroyed, false);
    } finally {
      broker.alarms.setLimits({ memHighWatermark: 0.99 });
      c.socket.destroy();
    }
  });

  it("a client within the window sends on past it: the window is reopened as transfers arrive", async () => {
    const c = await connect(broker.amqpPort);
    const outcomes = await sendAll(await openSender(c, "/queues/windowed"), Array.from({ length: WINDOW * 4 }, (_, i) => ({ body: data(`m${i}`) })));
    assert.ok(outcomes.every((o) => o.outcome === "accepted"));
    await close(c);
  });

  it("a link to the transaction coordinator is refused with amqp:not-implemented (RabbitMQ 4 has no AMQP 1.0 transactions)", async () => {
    const c = raw(broker.amqpPort);
    const coordinator = { type: "described" as const, descriptor: { type: "ulong" as const, value: BigInt(PERFORMATIVE.coordinator) }, value: { type: "list" as const, value: [{ type: "array" as const, value: [{ type: "symbol" as const, value: "amqp:local-transactions" }] }] } };
    c.socket.write(Buffer.concat([...opening(), senderAttach("txn-controller", coordinator)]));
    try {
      await eventually(() => c.received().includes("amqp:not-implemented"), 5000, "the detach");
      assert.match(c.received(), /Transactions not supported/);
      // The session stays: once the client answers the detach, a link on the same handle attaches.
      c.socket.write(Buffer.concat([performativeFrame(FRAME_AMQP, 0, PERFORMATIVE.detach, [u(0), { type: "boolean", value: true }]), senderAttach("after-txn", target("/queues/windowed"))]));
      await eventually(() => c.received().includes("after-txn"), 5000, "the second attach answered");
      assert.equal(c.received().includes("amqp:session"), false);
    } finally {
      c.socket.destroy();
    }
  });
});
