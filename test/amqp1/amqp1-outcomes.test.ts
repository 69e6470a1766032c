// The released and modified outcomes with RabbitMQ 4's meanings on a quorum queue with a delivery
// limit: released returns a message without counting a failed delivery, modified{delivery-failed}
// counts one (x-delivery-count, then dead-lettering past the limit), and a modified outcome's
// x- message-annotations are added to the message.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { EventContext, Receiver } from "rhea";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { bodyOf, close, connect, data, openSender, sendAll, type Received } from "../helpers/rhea-client.js";
import { eventually, withTimeout } from "../helpers/wait.js";
import type { ClientContext } from "../../src/broker/index.js";

/** A receiver given one credit per call: each call resolves with the next message. */
function oneByOne(receiver: Receiver): () => Promise<Received> {
  const waiting: Array<(r: Received) => void> = [];
  receiver.on("message", (ctx: EventContext) => waiting.shift()?.({ message: ctx.message!, delivery: ctx.delivery! }));
  return () => {
    const p = new Promise<Received>((resolve) => waiting.push(resolve));
    receiver.add_credit(1);
    return withTimeout(p, 5000, "the next message");
  };
}

describe("AMQP 1.0 outcomes and the delivery limit (RabbitMQ 4)", () => {
  let broker: TestBroker;
  let ctx: ClientContext;
  const count = (name: string): number => broker.broker.vhost("/").queues.get(name)!.messageCount;

  before(async () => {
    broker = await startTestBroker();
    ctx = { permissions: broker.broker.checkerFor("guest"), owner: null };
    broker.broker.declareQueue(ctx, "/", { name: "limit-dlq", durable: true, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
    broker.broker.declareQueue(
      ctx,
      "/",
      { name: "limit-q", durable: true, autoDelete: false, exclusiveOwner: null, arguments: { "x-queue-type": "quorum", "x-delivery-limit": 1, "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "limit-dlq" } },
      false,
    );
  });
  after(async () => {
    await broker.close();
  });

  it("released never counts toward the delivery limit; modified{delivery-failed} does, and past the limit the message is dead-lettered", async () => {
    const c = await connect(broker.amqpPort);
    await sendAll(await openSender(c, "/queues/limit-q"), [{ body: data("once") }]);
    const receiver = c.open_receiver({ source: { address: "/queues/limit-q" }, autoaccept: false, credit_window: 0 });
    const next = oneByOne(receiver);
    // Three releases: a delivery limit of 1 would have dropped it after the second if they counted.
    for (let i = 0; i < 3; i++) {
      const r = await next();
      assert.equal(bodyOf(r.message).toString(), "once");
      assert.equal(r.message.message_annotations?.["x-delivery-count"], undefined, "released is not a failed delivery");
      r.delivery.release();
    }
    const first = await next();
    first.delivery.modified({ delivery_failed: true });
    const second = await next();
    assert.equal(Number(second.message.message_annotations?.["x-delivery-count"]), 1, "one failed delivery counted");
    second.delivery.modified({ delivery_failed: true });
    await eventually(() => count("limit-dlq") === 1 && count("limit-q") === 0, 5000, "dead-lettered past the delivery limit");
    await close(c);
  });

  it("a modified outcome's x- message-annotations are added to the message the next consumer gets", async () => {
    const c = await connect(broker.amqpPort);
    await sendAll(await openSender(c, "/queues/limit-q"), [{ body: data("annotated") }]);
    const receiver = c.open_receiver({ source: { address: "/queues/limit-q" }, autoaccept: false, credit_window: 0 });
    const next = oneByOne(receiver);
    const r = await next();
    // "x-" keys are the client's to set (part 3 §3.2.10); others are reserved and ignored.
    r.delivery.modified({ message_annotations: { "x-opt-retry-reason": "busy", reserved: "ignored" } });
    const again = await next();
    assert.equal(bodyOf(again.message).toString(), "annotated");
    assert.equal(again.message.message_annotations?.["x-opt-retry-reason"], "busy");
    assert.equal(again.message.message_annotations?.["reserved"], undefined);
    assert.equal(again.message.message_annotations?.["x-delivery-count"], undefined, "not delivery-failed: not counted");
    again.delivery.accept();
    await eventually(() => count("limit-q") === 0 && broker.broker.vhost("/").queues.get("limit-q")!.unacked === 0, 5000, "accepted");
    await close(c);
  });
});
