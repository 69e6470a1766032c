/**
 * A consumer of amq.rabbitmq.event for tests: binds a server-named queue with "#" (or given
 * keys) and keeps every event; `next(key, match)` waits for the first one not yet taken with
 * that routing key whose headers match.
 */
import type { Channel, ConsumeMessage } from "amqplib";
import { withTimeout } from "../helpers/wait.js";

export interface SeenEvent {
  readonly key: string;
  readonly headers: Record<string, unknown>;
  readonly message: ConsumeMessage;
}

export class EventLog {
  private readonly seen: SeenEvent[] = [];
  private readonly taken = new Set<SeenEvent>();
  private waiters: Array<() => void> = [];
  queue = "";

  static async bind(ch: Channel, keys: readonly string[] = ["#"]): Promise<EventLog> {
    const log = new EventLog();
    const { queue } = await ch.assertQueue("", { exclusive: true });
    log.queue = queue;
    for (const k of keys) await ch.bindQueue(queue, "amq.rabbitmq.event", k);
    await ch.consume(queue, (m) => {
      if (!m) return;
      log.seen.push({ key: m.fields.routingKey, headers: (m.properties.headers ?? {}) as Record<string, unknown>, message: m });
      const w = log.waiters;
      log.waiters = [];
      for (const f of w) f();
    }, { noAck: true });
    return log;
  }

  /** The first untaken event with `key` whose headers include `match` (compared as strings). */
  next(key: string, match: Record<string, unknown> = {}, ms = 5000): Promise<SeenEvent> {
    const find = (): SeenEvent | undefined =>
      this.seen.find((e) => !this.taken.has(e) && e.key === key && Object.entries(match).every(([k, v]) => String(e.headers[k]) === String(v)));
    return withTimeout(
      new Promise<SeenEvent>((resolve) => {
        const check = (): void => {
          const e = find();
          if (e) {
            this.taken.add(e);
            resolve(e);
          } else this.waiters.push(check);
        };
        check();
      }),
      ms,
      `event ${key} ${JSON.stringify(match)} (seen: ${this.seen.map((e) => e.key).join(", ")})`,
    );
  }
}
