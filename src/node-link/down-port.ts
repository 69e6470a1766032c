/**
 * The port to a queue's home node while no link to it is up (docs/CLUSTERING.md: it is starting,
 * restarting after a kill, or gone): a publish routed to one of its queues is never confirmed, a
 * consume is cancelled at once, and `basic.get`/purge/delete/counts fail. RemoteQueue checks `up`
 * first, so `basic.consume` and `basic.get` answer RabbitMQ's "home node … is down or
 * inaccessible". Used by `coney --workers N` and by a spread cluster.
 */
import type { QueueLeaderPort, QueueSpec, RemoteConsumerSink, RemoteGot, RemoteQueueInfo, SyncWaiter } from "../broker/index.js";
import { homeNodeDown } from "../errors/broker-error.js";

type QueueOf = QueueSpec & { readonly vhost: string };

/** The port to a node whose link is not up: nothing reaches it (RemoteQueue checks `up` first). */
export class DownPort implements QueueLeaderPort {
  readonly up = false;
  readonly inFlight = 0;
  readonly inFlightBytes = 0;
  readonly creditMessages = 0;
  readonly creditBytes = 0;

  constructor(readonly node: string) {}

  forward(): number {
    return 0;
  }
  whenStored(waiter: SyncWaiter, token: number): void {
    // Never a confirm for a message the leader may not have.
    setImmediate(() => waiter.synced(token, false));
  }
  consume(_q: unknown, _terms: unknown, sink: RemoteConsumerSink): number {
    setImmediate(() => sink.cancelledByLeader(`node '${this.node}' is down`));
    return 0;
  }
  cancel(): void {}
  settle(): void {}
  onLost(listener: () => void): void {
    listener();
  }
  /** The catalogue's 404, as RemoteQueue.checkConsumable answers a consume: a client error, never an internal one. */
  private down<T>(q: QueueOf): Promise<T> {
    return Promise.reject(homeNodeDown(this.node, q.name, q.vhost));
  }
  purge(q: QueueOf): Promise<number> {
    return this.down(q);
  }
  delete(q: QueueOf): Promise<number> {
    return this.down(q);
  }
  info(q: QueueOf): Promise<RemoteQueueInfo> {
    return this.down(q);
  }
  infoMany(qs: readonly QueueOf[]): Promise<readonly (RemoteQueueInfo | null)[]> {
    return qs.length === 0 ? Promise.resolve([]) : this.down(qs[0]!);
  }
  get(q: QueueOf): Promise<RemoteGot | null> {
    return this.down(q);
  }
  streamQuery(q: QueueOf): Promise<readonly number[]> {
    return this.down(q);
  }
}
