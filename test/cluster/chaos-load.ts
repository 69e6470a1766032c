/**
 * The load of the chaos cases that kill a node leading part of the queues (case 8 on `coney
 * --workers 2`, cases 9 and 10 on a spread cluster): publishers that keep a few confirmed
 * publishes in flight per queue, each on a channel of its own (so a queue whose leader is gone
 * never holds up another's confirms), noting the time of every confirm; consumers that tally every
 * delivery by its id. Bodies are unique ids, so "lost" is a confirmed id never consumed and a
 * "duplicate" is an id delivered more than once (a redelivery; RabbitMQ flags it `redelivered`).
 */
import type { ChannelModel, ConsumeMessage } from "amqplib";

/** One publisher connection: per queue, `window` publishes in flight, each confirm noted with its time. */
export class Publisher {
  readonly confirmed = new Set<string>();
  /** Per queue, the times (Date.now()) of its confirms. */
  readonly confirmTimes = new Map<string, number[]>();
  /** Publishes answered with a nack or dropped with their channel: never confirmed, published again under a new id. */
  nacked = 0;
  private stopped = false;
  private readonly idle: Array<() => void> = [];
  private inFlight = 0;

  constructor(readonly label: string, readonly conn: ChannelModel, readonly window = 8) {}

  async start(queues: readonly string[]): Promise<void> {
    for (const q of queues) {
      const ch = await this.conn.createConfirmChannel();
      ch.on("error", () => {});
      this.confirmTimes.set(q, []);
      let seq = 0;
      const send = (): void => {
        if (this.stopped) return this.settle();
        const id = `${this.label}:${q}:${seq++}`;
        this.inFlight++;
        try {
          ch.sendToQueue(q, Buffer.from(id), { persistent: true }, (err: unknown) => {
            this.inFlight--;
            if (err === null || err === undefined) {
              this.confirmed.add(id);
              this.confirmTimes.get(q)!.push(Date.now());
              send();
            } else {
              // Nacked (its leader is down) or the channel is gone: not confirmed; try again a little later.
              this.nacked++;
              setTimeout(send, 50);
            }
          });
        } catch {
          // The channel is closed (its connection died with its node): this loop ends.
          this.inFlight--;
          this.settle();
        }
      };
      for (let k = 0; k < this.window; k++) send();
    }
  }

  /** Confirms of `queue` after time `t`. */
  confirmsAfter(queue: string, t: number): number {
    return (this.confirmTimes.get(queue) ?? []).filter((x) => x > t).length;
  }

  /** The first confirm of `queue` after time `t`, if any. */
  firstConfirmAfter(queue: string, t: number): number | undefined {
    return (this.confirmTimes.get(queue) ?? []).find((x) => x > t);
  }

  /** Stops publishing; resolves once nothing is in flight (confirmed, nacked or dropped with its channel). */
  stop(): Promise<void> {
    this.stopped = true;
    return new Promise((resolve) => {
      this.idle.push(resolve);
      this.settle();
    });
  }

  private settle(): void {
    if (this.inFlight === 0) for (const r of this.idle.splice(0)) r();
  }
}

/**
 * The longest time without a confirm of any of `queues` (merged) between `from` and `to`,
 * counting the stretches before the first and after the last.
 */
export function longestGap(p: Publisher, queues: readonly string[], from: number, to: number): number {
  const times = queues.flatMap((q) => p.confirmTimes.get(q) ?? []).filter((t) => t >= from && t <= to).sort((a, b) => a - b);
  let gap = times.length === 0 ? to - from : times[0]! - from;
  for (let i = 1; i < times.length; i++) gap = Math.max(gap, times[i]! - times[i - 1]!);
  return Math.max(gap, to - (times.at(-1) ?? from));
}

/**
 * Every delivery by its id: how often, and how many repeats came without the redelivered flag.
 * The rule checked is "at most one delivery of an id without the flag", not "every delivery after
 * the first one this process handled is flagged": deliveries to consumers on different
 * connections are handled in the order their sockets are read, not the order the broker sent
 * them. A message delivered to a consumer whose connection then closes (the cut node's) and
 * requeued to another can reach this process flagged on the second connection before its first,
 * unflagged delivery is read from the first (seen in chaos case 11 under load: both in the same ms).
 */
export class Tally {
  readonly counts = new Map<string, number>();
  /** Ids delivered once already without the redelivered flag. */
  private readonly unflagged = new Set<string>();
  unflaggedRepeats = 0;

  record(m: ConsumeMessage): void {
    const id = m.content.toString();
    this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
    if (m.fields.redelivered) return;
    if (this.unflagged.has(id)) this.unflaggedRepeats++;
    else this.unflagged.add(id);
  }

  /** Deliveries beyond the first of each id. */
  get duplicates(): number {
    let d = 0;
    for (const n of this.counts.values()) d += n - 1;
    return d;
  }

  missing(expected: ReadonlySet<string>): number {
    let m = 0;
    for (const id of expected) if (!this.counts.has(id)) m++;
    return m;
  }
}

/**
 * Channels on `conn` consuming every queue of `queues` with acks into `tally`. A consumer
 * cancelled (its queue's leader lost) stops quietly; an ack on a channel gone with its connection
 * is dropped (the leader requeues the message for another consumer).
 */
export async function consumeAll(conn: ChannelModel, queues: readonly string[], tally: Tally, prefetch = 100, homeMovedMs = 20_000): Promise<void> {
  // A channel per queue: right after a failover the node this connection landed on may still name
  // the dead home of a queue another node adopted (404 "home node … is down or inaccessible"),
  // which closes the channel; that queue's consume is tried again until this node learnt its new home.
  for (const q of queues) {
    const deadline = Date.now() + homeMovedMs;
    for (;;) {
      const ch = await conn.createChannel();
      ch.on("error", () => {});
      await ch.prefetch(prefetch);
      try {
        await ch.consume(q, (m) => {
          if (m === null) return;
          tally.record(m);
          try {
            ch.ack(m);
          } catch {
            // The channel is gone.
          }
        });
        break;
      } catch (err) {
        if (!/is down or inaccessible/.test((err as Error).message) || Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
}
