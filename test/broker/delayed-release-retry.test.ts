// An x-delayed-message exchange's holder (src/broker/delayed/delayed-messages.ts) acks a due
// message only once every queue it reached holds it: a release a queue led elsewhere could not
// take (its leader down or moving, as during a workers start) is tried again later instead of
// being lost, at most a bounded number of times; a release answered later (a forwarded one's
// STORED) is acked only then. The holder's queue is a real MessageQueue; the release is the seam
// the broker fills (operations/delayed-delivery.ts), scripted here.
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { MessageQueue } from "../../src/broker/queue/queue.js";
import { DelayedMessages } from "../../src/broker/delayed/delayed-messages.js";
import { createMessage, type Message } from "../../src/broker/message.js";
import { quietHost } from "./queue-fixture.js";

const host = quietHost();

function holder(route: (m: Message, done: (ok: boolean) => void) => void): { queue: MessageQueue; held: DelayedMessages } {
  const queue = new MessageQueue("/", { name: "amq.delayed.x", durable: false, autoDelete: false, exclusiveOwner: null, arguments: {} }, host);
  const held = new DelayedMessages(queue, { now: () => Date.now(), route, retryMs: 5 });
  return { queue, held };
}

const delayed = (text: string, ms: number): Message => createMessage("x", "k", { headers: { "x-delay": ms } }, null, Buffer.from(text), Date.now());

/** Resolves when `n` routes were asked (never a sleep: the holder's own timers drive it). */
function routes(n: number, answer: (attempt: number, m: Message, done: (ok: boolean) => void) => void): { route: (m: Message, done: (ok: boolean) => void) => void; asked: Promise<Message[]> } {
  const seen: Message[] = [];
  let resolve!: (ms: Message[]) => void;
  const asked = new Promise<Message[]>((r) => (resolve = r));
  return {
    route: (m, done) => {
      seen.push(m);
      answer(seen.length, m, done);
      if (seen.length === n) resolve(seen);
    },
    asked,
  };
}

describe("delayed releases wait until the queues they reach hold them", () => {
  // The holder's timers are unref'd (they never keep a broker process alive): this keeps the test's alive.
  let alive: NodeJS.Timeout;
  beforeEach(() => (alive = setInterval(() => {}, 1000)));
  afterEach(() => clearInterval(alive));
  it("a release refused twice (a leader elsewhere down) is tried again, then acked once taken", async () => {
    const r = routes(3, (attempt, _m, done) => done(attempt === 3));
    const { queue, held } = holder(r.route);
    held.hold(delayed("a", 1));
    const seen = await r.asked;
    assert.deepEqual(seen.map((m) => String(m.body)), ["a", "a", "a"]);
    // Acked on the third: nothing held, nothing unacked.
    assert.equal(held.count, 0);
    assert.equal(queue.unacked, 0);
    held.halt();
  });

  it("a forwarded release is acked only when its leader reports it stored", async () => {
    let report!: (ok: boolean) => void;
    const r = routes(1, (_a, _m, done) => (report = done));
    const { queue, held } = holder(r.route);
    held.hold(delayed("b", 1));
    await r.asked;
    assert.equal(queue.unacked, 1, "not acked while the leader has not answered");
    report(true);
    assert.equal(queue.unacked, 0);
    held.halt();
  });

  it("a release still refused after the retries is dropped, as an unroutable one (never held for ever)", async () => {
    const r = routes(61, (_a, _m, done) => done(false));
    const { queue, held } = holder(r.route);
    held.hold(delayed("c", 1));
    await r.asked;
    assert.equal(held.count, 0);
    assert.equal(queue.unacked, 0);
    held.halt();
  });
});
