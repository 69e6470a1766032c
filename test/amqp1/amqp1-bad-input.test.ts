// Bad AMQP 1.0 input gets the spec's error on the right scope and disturbs nothing else: a
// malformed performative closes that connection with amqp:decode-error, a transfer past the
// link credit detaches that link with amqp:link:transfer-limit-exceeded, a message over
// max_message_size detaches with amqp:link:message-size-exceeded; nothing of them is stored.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { close, connect, data, linkError, openSender, sendAll } from "../helpers/rhea-client.js";
import { eventually } from "../helpers/wait.js";
import type { ClientContext } from "../../src/broker/index.js";
import { opening, raw, senderAttach, settledTransfer, target } from "../helpers/amqp1-raw.js";
import { LINK_CREDIT } from "../../src/amqp1/incoming-link.js";

describe("AMQP 1.0 bad input", () => {
  let broker: TestBroker;
  let ctx: ClientContext;
  const count = (name: string): number => broker.broker.vhost("/").queues.get(name)!.messageCount;

  before(async () => {
    broker = await startTestBroker({ maxMessageSize: 64 * 1024 });
    ctx = { permissions: broker.broker.checkerFor("guest"), owner: null };
    for (const name of ["bad-q", "credit-abuse", "too-big"]) broker.broker.declareQueue(ctx, "/", { name, durable: false, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
  });
  after(async () => {
    await broker.close();
  });

  it("a malformed performative closes only that connection, with amqp:decode-error", async () => {
    const good = await connect(broker.amqpPort);
    const c = raw(broker.amqpPort);
    const garbage = Buffer.from([0, 0, 0, 14, 2, 0, 0, 0, 0x00, 0x53, 0x11, 0xc0, 0x09, 0x01]);
    c.socket.write(Buffer.concat([...opening(), garbage]));
    await c.closed;
    assert.match(c.received(), /amqp:decode-error/);
    assert.equal((await sendAll(await openSender(good, "/queues/bad-q"), [{ body: data("fine") }]))[0]!.outcome, "accepted");
    await close(good);
  });

  it("a transfer beyond the link credit detaches that link with amqp:link:transfer-limit-exceeded; what the credit covered is stored", async () => {
    const c = raw(broker.amqpPort);
    const attach = senderAttach("abuser", target("/queues/credit-abuse"));
    const transfers = Array.from({ length: LINK_CREDIT + 44 }, (_, i) => settledTransfer(i));
    c.socket.write(Buffer.concat([...opening(), attach]));
    // The broker's flow grants the credit; the transfers go after it, 44 more than granted. A
    // memory alarm holds the top-ups back (incoming-link.ts), so however the broker's reads cut
    // the burst, no new credit is granted while it arrives.
    await eventually(() => c.received().includes("/queues/credit-abuse"), 5000, "the attach answered");
    broker.alarms.setLimits({ memHighWatermark: 1e-9 });
    try {
      c.socket.write(Buffer.concat(transfers));
      await eventually(() => c.received().includes("amqp:link:transfer-limit-exceeded"), 5000, "the detach");
      assert.equal(count("credit-abuse"), LINK_CREDIT);
    } finally {
      broker.alarms.setLimits({ memHighWatermark: 0.99 });
      c.socket.destroy();
    }
  });

  it("a message over max_message_size detaches its link with amqp:link:message-size-exceeded and stores nothing of it", async () => {
    const c = await connect(broker.amqpPort, { max_frame_size: 8192 });
    const sender = await openSender(c, "/queues/too-big");
    const err = linkError(sender);
    sender.send({ body: data(Buffer.alloc(100 * 1024, 7)) });
    assert.equal((await err).condition, "amqp:link:message-size-exceeded");
    assert.equal(count("too-big"), 0);
    assert.equal((await sendAll(await openSender(c, "/queues/too-big"), [{ body: data("small") }]))[0]!.outcome, "accepted");
    await close(c);
  });
});
