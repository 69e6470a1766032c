/**
 * What a data-dir move killed part way must leave (single node ⇄ workers, docs/CLUSTERING.md
 * "Upgrading a single node to workers"): every message of every queue there, none more than twice
 * (only a batch written but not yet acknowledged in the old store may come twice), and in order by
 * first appearance. Reads each queue to empty with basic.get; returns how many came twice.
 */
import assert from "node:assert/strict";
import type { Channel } from "amqplib";

/** The body the killed-move tests publish as message `k` of queue `q`. */
export const movedBody = (q: string, k: number): string => `${q}:${k}`;

export async function assertMovedAtMostTwice(ch: Channel, queues: readonly string[], perQueue: number): Promise<number> {
  let twice = 0;
  for (const q of queues) {
    const seen = new Map<string, number>();
    const order: number[] = [];
    for (let m = await ch.get(q, { noAck: true }); m !== false; m = await ch.get(q, { noAck: true })) {
      const b = m.content.toString();
      seen.set(b, (seen.get(b) ?? 0) + 1);
      if (seen.get(b) === 1) order.push(Number(b.slice(q.length + 1)));
    }
    for (let k = 0; k < perQueue; k++) assert.ok((seen.get(movedBody(q, k)) ?? 0) >= 1, `${q}: message ${k} is there`);
    assert.ok([...seen.values()].every((n) => n <= 2), `${q}: no message more than twice`);
    twice += [...seen.values()].filter((n) => n === 2).length;
    assert.deepEqual(order, Array.from({ length: perQueue }, (_, k) => k), `${q}: in order`);
  }
  return twice;
}
