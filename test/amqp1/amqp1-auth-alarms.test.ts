// AMQP 1.0 logins counted under their own protocol label (RabbitMQ's auth_attempts "amqp10"),
// SASL ANONYMOUS as RabbitMQ 4's anonymous_login_user / anonymous_login_pass ("none": not
// offered), and memory alarms throttling AMQP 1.0 senders by withholding link credit.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Connection, Sender } from "rhea";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { close, connect, data, openSender, receive, refusedWith, sendAll } from "../helpers/rhea-client.js";
import { eventually, withTimeout } from "../helpers/wait.js";
import type { ClientContext } from "../../src/broker/index.js";
import { LINK_CREDIT } from "../../src/amqp1/incoming-link.js";

/** Waits for a round trip on `c` (a receiver's attach answered), so every frame sent before it has been read. */
async function roundTrip(c: Connection): Promise<void> {
  const { receiver, messages } = receive(c, "/queues/alarm-q", 0);
  await messages;
  receiver.close();
}

describe("AMQP 1.0 logins and alarms", () => {
  let broker: TestBroker;
  let ctx: ClientContext;

  before(async () => {
    broker = await startTestBroker({ anonymousLoginUser: "anon", anonymousLoginPass: "anon-secret" });
    ctx = { permissions: broker.broker.checkerFor("guest"), owner: null };
    broker.broker.putUser("anon", { password: "anon-secret", tags: [] });
    broker.broker.setPermission("anon", "/", { configure: "", write: ".*", read: ".*" });
    broker.broker.declareQueue(ctx, "/", { name: "alarm-q", durable: false, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
  });
  after(async () => {
    await broker.close();
  });

  it("counts AMQP 1.0 logins under protocol amqp10, not amqp091", async () => {
    broker.broker.authAttempts.reset();
    await close(await connect(broker.amqpPort));
    await refusedWith(broker.amqpPort, { password: "wrong" });
    const rows = broker.broker.authAttempts.list();
    assert.deepEqual(
      rows.map((r) => [r.protocol, r.auth_attempts, r.auth_attempts_failed]),
      [["amqp10", 2, 1]],
    );
  });

  it("logs SASL ANONYMOUS in as anonymous_login_user", async () => {
    const c = await connect(broker.amqpPort, { username: "someone", password: undefined });
    const record = broker.broker.connections.list().find((x) => x.info().authMechanism === "ANONYMOUS");
    assert.equal(record?.info().user, "anon");
    await close(c);
  });

  it("does not offer ANONYMOUS when anonymous_login_user is none", async () => {
    const other = await startTestBroker({ anonymousLoginUser: "none" });
    try {
      // Refused in SASL (rhea reports no condition for a failed sasl-outcome).
      await refusedWith(other.amqpPort, { username: "someone", password: undefined });
      assert.equal(other.broker.connections.list().length, 0);
    } finally {
      await other.close();
    }
  });

  it("grants a sender no link credit while a memory alarm is on, and credit once it clears", async () => {
    const c = await connect(broker.amqpPort);
    broker.alarms.setLimits({ memHighWatermark: 1e-9 });
    try {
      const s: Sender = c.open_sender({ target: { address: "/queues/alarm-q" } });
      await withTimeout(new Promise<void>((resolve) => s.once("sender_open", () => resolve())), 5000, "sender_open");
      await roundTrip(c);
      assert.equal(s.sendable(), false, "no credit while the alarm is on");
      broker.alarms.setLimits({ memHighWatermark: 0.99 });
      await withTimeout(new Promise<void>((resolve) => (s.sendable() ? resolve() : s.once("sendable", () => resolve()))), 5000, "credit after the alarm");
      assert.deepEqual(
        (await sendAll(s, [{ body: data("after the alarm") }])).map((o) => o.outcome),
        ["accepted"],
      );
      await eventually(() => broker.broker.vhost("/").queues.get("alarm-q")!.messageCount === 1, 5000, "stored");
    } finally {
      broker.alarms.setLimits({ memHighWatermark: 0.99 });
      await close(c);
    }
  });

  it("a sender that attached before the alarm uses what it was granted and gets no top-up until the alarm clears", async () => {
    broker.broker.declareQueue(ctx, "/", { name: "alarm-q2", durable: false, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
    const stored = (): number => broker.broker.vhost("/").queues.get("alarm-q2")!.messageCount;
    const c = await connect(broker.amqpPort);
    const s = await openSender(c, "/queues/alarm-q2", { snd_settle_mode: 1 });
    broker.alarms.setLimits({ memHighWatermark: 1e-9 });
    try {
      // rhea buffers what the credit does not cover; the broker granted LINK_CREDIT (incoming-link.ts).
      const total = LINK_CREDIT + 344;
      for (let i = 0; i < LINK_CREDIT; i++) s.send({ body: data(`m${i}`) } as never);
      await eventually(() => stored() === LINK_CREDIT, 5000, "the granted credit's messages stored");
      for (let i = LINK_CREDIT; i < total; i++) s.send({ body: data(`m${i}`) } as never);
      await roundTrip(c);
      assert.equal(stored(), LINK_CREDIT, "no top-up while the alarm is on");
      broker.alarms.setLimits({ memHighWatermark: 0.99 });
      await eventually(() => stored() === total, 5000, "the rest once the alarm clears");
    } finally {
      broker.alarms.setLimits({ memHighWatermark: 0.99 });
      await close(c);
    }
  });
});
