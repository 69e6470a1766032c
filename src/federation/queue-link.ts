/**
 * Queue federation (RabbitMQ's rabbit_federation_queue_link): the downstream queue pulls from the
 * upstream queue (same name, or the upstream's `queue` key) only while it has a consumer with
 * spare capacity and no ready messages. The link consumes upstream with x-priority -1, so the
 * upstream broker's own consumers are served first, and cancels that consumer when the downstream
 * has no demand. `checkDemand` is called by the service's demand timer (docs/FEDERATION.md).
 */
import type { Queue } from "../broker/index.js";
import type { Endpoint, LinkDelivery } from "../links/endpoint.js";
import { FederationLink, type LinkHost } from "./link.js";
import { queueHopHeaders } from "./received-from.js";
import type { Upstream } from "./upstream-config.js";

export class QueueLink extends FederationLink {
  /** Consuming upstream now (RabbitMQ's `run`), or asked to and waiting for the consume-ok. */
  private consuming = false;
  private toggling: Promise<void> = Promise.resolve();

  constructor(host: LinkHost, private readonly queue: Queue, upstream: Upstream, policy: string) {
    super(host, "queue", queue.vhost, queue.name, upstream, policy);
  }

  get upstreamResource(): string {
    return this.upstream.queue;
  }

  /** RabbitMQ's rule: some consumer of priority ≥ 0 can take a message, and nothing is ready. */
  wantsMessages(): boolean {
    const q = this.queue;
    if (q.messageCount > 0) return false;
    for (const c of q.listConsumers()) if (c.priority >= 0 && c.canTake()) return true;
    return false;
  }

  checkDemand(): void {
    const up = this.up;
    if (!up || this.state !== "running") return;
    const want = this.wantsMessages();
    if (want === this.consuming) return;
    this.consuming = want;
    const gen = this.generation;
    this.toggling = this.toggling
      .then(async () => {
        if (gen !== this.generation) return;
        if (want) await this.consume(up, gen);
        else await up.cancel();
      })
      .catch((err: unknown) => this.host.logger.debug("federation queue link could not change its consumer", { link: this.describe(), err: String(err) }));
  }

  protected async connect(up: Endpoint): Promise<void> {
    // As RabbitMQ's link: an existing upstream queue is used as it is (a passive declare first);
    // a missing one is declared durable with the downstream queue's arguments.
    await up.ensureQueue(this.upstream.queue, this.queue.arguments);
    this.consuming = false;
  }

  private async consume(up: Endpoint, gen: number): Promise<void> {
    const u = this.upstream;
    await up.consume(u.queue, { prefetch: u.prefetchCount, noAck: u.ackMode === "no-ack", args: { "x-priority": -1 } }, (d) => {
      if (gen === this.generation) this.deliver(d);
    });
  }

  private deliver(d: LinkDelivery): void {
    const { userId, ...rest } = d.properties;
    const headers = queueHopHeaders(rest.headers, this.uri, this.upstream.queue, d.redelivered, d.exchange, d.routingKey);
    const properties = { ...rest, ...(this.upstream.trustUserId && userId !== undefined ? { userId } : {}), headers };
    this.forward(d, "", this.name, properties);
  }

  protected disconnected(): void {
    this.consuming = false;
    this.toggling = Promise.resolve();
  }

  protected async cleanupUpstream(): Promise<void> {
    // A queue link declares nothing of its own upstream (the upstream queue is the user's).
  }
}
