/**
 * Which consumer of a queue gets the next message (RabbitMQ's consumer priorities and single
 * active consumer). Consumers are kept sorted by x-priority, highest first, and served
 * round-robin among equals while they have capacity; on a single-active-consumer queue they keep
 * arrival order and only the first one gets messages. Plain functions over the queue's own
 * array, so choosing a consumer per delivery costs no extra object or indirection.
 */
import type { ConsumerActivity, QueueConsumer } from "./queue-consumer.js";

type Ordered = Pick<QueueConsumer, "priority" | "canTake">;

/** Inserts `c` at its place in serving order. */
export function insertConsumer<C extends Ordered>(consumers: C[], c: C, singleActive: boolean): void {
  let i = 0;
  while (i < consumers.length && consumers[i]!.priority >= c.priority) i++;
  // Single active consumer: the earliest consumer is the active one, so keep arrival order.
  if (singleActive) i = consumers.length;
  consumers.splice(i, 0, c);
}

/** "up" on an ordinary queue; with single active consumer the first is "single_active", the rest "waiting". */
export function consumerActivity<C>(consumers: readonly C[], c: C, singleActive: boolean): ConsumerActivity {
  if (!singleActive) return "up";
  return consumers[0] === c ? "single_active" : "waiting";
}

/**
 * The highest-priority consumer with capacity, round-robin among equals; `turns` keeps, per
 * priority, the index (within that priority's run) to try first next time.
 */
export function pickConsumer<C extends Ordered>(consumers: readonly C[], turns: Map<number, number>, singleActive: boolean): C | null {
  const cs = consumers;
  if (singleActive) return cs.length > 0 && cs[0]!.canTake() ? cs[0]! : null;
  const n = cs.length;
  let i = 0;
  while (i < n) {
    const p = cs[i]!.priority;
    let j = i + 1;
    while (j < n && cs[j]!.priority === p) j++;
    const len = j - i;
    const start = (turns.get(p) ?? 0) % len;
    for (let k = 0; k < len; k++) {
      const c = cs[i + ((start + k) % len)]!;
      if (c.canTake()) {
        turns.set(p, (start + k + 1) % len);
        return c;
      }
    }
    i = j;
  }
  return null;
}
