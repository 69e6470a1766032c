/**
 * A connection's ties to the streams its publishers and subscriptions use: one StreamWatcher per
 * stream, which wakes the stream's subscriptions when chunks commit and, when the stream is
 * deleted, drops its publishers and subscriptions and tells the client once with MetadataUpdate
 * (STREAM_NOT_AVAILABLE), as RabbitMQ does (stream-gone.ts).
 */
import { definitionsFollowed, type StreamQueue, type StreamWatcher } from "../broker/index.js";
import type { StreamContext } from "./stream-context.js";
import { tellStreamGone, usingStream } from "./stream-gone.js";

interface Link extends StreamWatcher {
  users: number;
  readonly wakers: Set<() => void>;
}

export class StreamLinks {
  private readonly links = new Map<StreamQueue, Link>();

  constructor(private readonly c: StreamContext) {}

  /** A publisher or subscription starts using `q`; `wake` (a subscription's) is called at each commit. */
  attach(q: StreamQueue, wake: (() => void) | null): void {
    let link = this.links.get(q);
    if (link === undefined) {
      const wakers = new Set<() => void>();
      link = {
        users: 0,
        wakers,
        committed: () => {
          for (const w of wakers) w();
        },
        deleted: () => this.streamDeleted(q),
      };
      this.links.set(q, link);
      q.watch(link);
    }
    link.users++;
    if (wake) link.wakers.add(wake);
    usingStream(this.c, q.name);
  }

  detach(q: StreamQueue, wake: (() => void) | null): void {
    const link = this.links.get(q);
    if (link === undefined) return;
    if (wake) link.wakers.delete(wake);
    if (--link.users > 0) return;
    this.links.delete(q);
    q.unwatch(link);
  }

  private streamDeleted(q: StreamQueue): void {
    this.links.delete(q);
    for (const p of [...this.c.publishers.values()]) {
      if (p.queue !== q) continue;
      this.c.publishers.delete(p.id);
      this.c.node.counters.publishers--;
    }
    for (const s of [...this.c.subscriptions.values()]) if (s.queue === q) s.stop();
    // Told once every other node applied the deletion (a turn later: it enters the mirror after its watchers ran).
    const broker = this.c.node.broker;
    tellStreamGone(this.c, q.name, broker.mirror === null ? null : new Promise<void>((resolve) => setImmediate(resolve)).then(() => definitionsFollowed(broker) ?? undefined));
  }
}
