// A message TTL of 0 is "deliver now or never" (RabbitMQ): a consumer that waits gets it even
// when the clock ticks between the message's arrival and its dispatch. The clock here advances
// on every read, the worst case of a loaded machine (CI once lost this message that way).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MessageQueue } from "../../src/broker/queue/queue.js";
import { createMessage } from "../../src/broker/message.js";
import { quietHost, recordingConsumer } from "./queue-fixture.js";

function tickingQueue(ttl: number): { queue: MessageQueue; expired: string[] } {
  let clock = 1_000;
  const expired: string[] = [];
  const host = quietHost({ deadLetter: (_q, m, reason) => void expired.push(`${m.body.toString()}:${reason}`), now: () => clock++ });
  const queue = new MessageQueue("/", { name: "ttl0", durable: false, autoDelete: false, exclusiveOwner: null, arguments: { "x-message-ttl": ttl } }, host);
  return { queue, expired };
}

const message = (text: string) => createMessage("", "ttl0", {}, null, Buffer.from(text), 0);

describe("message TTL 0", () => {
  it("reaches a waiting consumer although the clock ticked since the message arrived", () => {
    const { queue, expired } = tickingQueue(0);
    const got: string[] = [];
    queue.addConsumer(recordingConsumer(got));
    queue.enqueue(message("taken"));
    assert.deepEqual(got, ["taken"]);
    assert.deepEqual(expired, []);
  });

  it("expires at once when nobody waits", () => {
    const { queue, expired } = tickingQueue(0);
    queue.enqueue(message("nobody waits"));
    assert.equal(queue.messageCount, 0);
    assert.deepEqual(expired, ["nobody waits:expired"]);
  });
});
