/** basic.get through amqplib that fails the test when the queue is empty. */
import assert from "node:assert/strict";
import type { Channel, GetMessage } from "amqplib";

export async function mustGet(ch: Channel, queue: string, options?: { noAck?: boolean }): Promise<GetMessage> {
  const m = await ch.get(queue, options);
  assert.ok(m, `expected a message in ${queue}`);
  return m;
}
