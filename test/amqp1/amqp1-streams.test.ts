// Stream queues over AMQP 1.0 as RabbitMQ 4 serves them: a receiver attaches to /queues/:stream
// with the rabbitmq:stream-offset-spec filter (first, an offset, next by default), gets each
// message annotated x-stream-offset, and its outcomes only return credit (the stream keeps the
// messages); an invalid offset is refused on attach; stream filters select by x-stream-filter-value.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import rhea from "rhea";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { bodyOf, close, connect, data, openSender, receive, sendAll } from "../helpers/rhea-client.js";
import type { ClientContext } from "../../src/broker/index.js";

const offsetSpec = (v: unknown): Record<string, unknown> => ({ "rabbitmq:stream-offset-spec": rhea.types.wrap_described(v, "rabbitmq:stream-offset-spec") });

describe("AMQP 1.0 stream queues", () => {
  let broker: TestBroker;
  let ctx: ClientContext;

  before(async () => {
    broker = await startTestBroker();
    ctx = { permissions: broker.broker.checkerFor("guest"), owner: null };
    broker.broker.declareQueue(ctx, "/", { name: "events", durable: true, autoDelete: false, exclusiveOwner: null, arguments: { "x-queue-type": "stream" } }, false);
    const c = await connect(broker.amqpPort);
    const outcomes = await sendAll(
      await openSender(c, "/queues/events"),
      Array.from({ length: 10 }, (_, i) => ({ body: data(`e${i}`), ...(i % 2 === 0 ? { message_annotations: { "x-stream-filter-value": "even" } } : {}) })),
    );
    assert.ok(outcomes.every((o) => o.outcome === "accepted"));
    await close(c);
  });
  after(async () => {
    await broker.close();
  });

  it("reads from the first offset with credit, each message annotated x-stream-offset; accepting leaves the stream as it was", async () => {
    const c = await connect(broker.amqpPort);
    const { messages } = receive(c, "/queues/events", 10, { source: { address: "/queues/events", filter: offsetSpec("first") }, credit_window: 3, autoaccept: true } as never);
    const got = await messages;
    assert.deepEqual(
      got.map((r) => bodyOf(r.message).toString()),
      Array.from({ length: 10 }, (_, i) => `e${i}`),
    );
    assert.deepEqual(
      got.map((r) => Number(r.message.message_annotations?.["x-stream-offset"])),
      Array.from({ length: 10 }, (_, i) => i),
    );
    assert.equal(broker.broker.vhost("/").queues.get("events")!.messageCount, 10);
    await close(c);
  });

  it("starts at a numeric offset; pre-settled links work too", async () => {
    const c = await connect(broker.amqpPort);
    const { messages } = receive(c, "/queues/events", 4, { source: { address: "/queues/events", filter: offsetSpec(rhea.types.wrap_ulong(6)) }, snd_settle_mode: 1 } as never);
    assert.deepEqual(
      (await messages).map((r) => bodyOf(r.message).toString()),
      ["e6", "e7", "e8", "e9"],
    );
    await close(c);
  });

  it("with no offset spec starts at next: only messages published after the attach", async () => {
    const c = await connect(broker.amqpPort);
    const { receiver, messages } = receive(c, "/queues/events", 1, { autoaccept: true });
    await new Promise<void>((resolve) => receiver.once("receiver_open", () => resolve()));
    await sendAll(await openSender(c, "/queues/events"), [{ body: data("late") }]);
    assert.equal(bodyOf((await messages)[0]!.message).toString(), "late");
    await close(c);
  });

  it("a stream filter selects messages by their x-stream-filter-value", async () => {
    const c = await connect(broker.amqpPort);
    const filter = { ...offsetSpec("first"), "rabbitmq:stream-filter": rhea.types.wrap_described("even", "rabbitmq:stream-filter") };
    const { messages } = receive(c, "/queues/events", 5, { source: { address: "/queues/events", filter }, autoaccept: true } as never);
    // The stream filter is a chunk-level (Bloom) filter, as RabbitMQ's: the client still checks each message.
    const even = (await messages).filter((r) => r.message.message_annotations?.["x-stream-filter-value"] === "even");
    assert.deepEqual(
      even.map((r) => bodyOf(r.message).toString()),
      ["e0", "e2", "e4", "e6", "e8"],
    );
    await close(c);
  });

  it("refuses an invalid offset spec on attach with amqp:precondition-failed", async () => {
    const c = await connect(broker.amqpPort);
    const { messages } = receive(c, "/queues/events", 1, { source: { address: "/queues/events", filter: offsetSpec("yesterday-ish") } } as never);
    await assert.rejects(messages, (e: { condition?: string }) => e.condition === "amqp:precondition-failed");
    await close(c);
  });
});
