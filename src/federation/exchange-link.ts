/**
 * Exchange federation (RabbitMQ's rabbit_federation_exchange_link): on the upstream, a queue
 * `federation: X -> C…` bound to an internal fanout exchange that the upstream exchange is bound
 * to once per distinct downstream binding; the link consumes the queue and republishes into the
 * downstream exchange with x-received-from, dropping what made max-hops hops or went round a
 * cycle. docs/FEDERATION.md has the why of each step.
 */
import { canonicalJson, type Exchange } from "../broker/index.js";
import type { FieldTable } from "../broker/values/field-value.js";
import type { Endpoint, LinkDelivery } from "../links/endpoint.js";
import { FederationLink, type LinkHost } from "./link.js";
import { exchangeHopHeaders, shouldForward, upstreamBindingArgs } from "./received-from.js";
import type { Upstream } from "./upstream-config.js";

interface UpstreamBinding {
  readonly key: string;
  readonly args: FieldTable;
}

export class ExchangeLink extends FederationLink {
  private queue = "";
  private internal = "";
  /** What is bound upstream now: canonical key → binding. */
  private bound = new Map<string, UpstreamBinding>();
  /** Binding changes run one at a time, in order, on the upstream channel. */
  private chain: Promise<void> = Promise.resolve();

  constructor(host: LinkHost, private readonly exchange: Exchange, upstream: Upstream, policy: string) {
    super(host, "exchange", exchange.vhost, exchange.name, upstream, policy);
  }

  get upstreamResource(): string {
    return this.upstream.exchange;
  }

  /** The upstream queue's name (rabbit_federation_exchange_link:upstream_queue_name). */
  static queueName(upstreamExchange: string, upstreamVhost: string, cluster: string, downVhost: string, downName: string): string {
    const downPart = downVhost === upstreamVhost ? (downName === upstreamExchange ? "" : `:${downName}`) : `:${downVhost}:${downName}`;
    return `federation: ${upstreamExchange} -> ${cluster}${downPart}`;
  }

  protected async connect(up: Endpoint, _down: Endpoint, gen: number): Promise<void> {
    const u = this.upstream;
    const x = this.exchange;
    const upstreamVhost = this.upstreamVhost;
    await up.ensureExchange(u.exchange, x.type, { durable: x.durable, autoDelete: x.autoDelete, internal: x.internal, args: x.arguments });
    this.queue = ExchangeLink.queueName(u.exchange, upstreamVhost, this.host.cluster(), this.vhost, this.name);
    const qArgs: FieldTable = {};
    if (u.expires !== null) qArgs["x-expires"] = u.expires;
    if (u.messageTtl !== null) qArgs["x-message-ttl"] = u.messageTtl;
    if (u.queueType === "quorum") qArgs["x-queue-type"] = "quorum";
    qArgs["x-internal-purpose"] = "federation";
    await up.declareQueue(this.queue, { durable: true, args: qArgs });
    const slot = `${this.vhost}\0${this.name}\0${u.name}`;
    const old = this.host.suffixes.get(slot) ?? "B";
    const suffix = old === "A" ? "B" : "A";
    this.internal = `${this.queue} ${suffix}`;
    await up.declareExchange(this.internal, "fanout", { durable: true, internal: true, autoDelete: true, args: { "x-internal-purpose": "federation" } });
    await up.bindQueue(this.queue, this.internal, "");
    this.bound = new Map();
    this.suffix = suffix;
    await this.syncBindings(up);
    this.host.suffixes.set(slot, suffix);
    await up.deleteExchange(`${this.queue} ${old}`);
    if (gen !== this.generation) return;
    await up.consume(this.queue, { prefetch: u.prefetchCount, noAck: u.ackMode === "no-ack" }, (d) => {
      if (gen === this.generation) this.deliver(d, upstreamVhost);
    });
  }

  private suffix: "A" | "B" = "A";

  /** The exchange's bindings changed (its bindingsWatcher): bring the upstream bindings in line. */
  bindingsChanged(): void {
    const up = this.up;
    if (!up || this.internal === "") return;
    const gen = this.generation;
    this.chain = this.chain.then(() => (gen === this.generation ? this.syncBindings(up) : undefined)).catch((err: unknown) => {
      this.host.logger.debug("federation binding update failed", { link: this.describe(), err: String(err) });
    });
  }

  /** The bindings the upstream should have, from the downstream exchange's bindings. */
  private wanted(upstreamVhost: string, upstreamCluster: string | null): Map<string, UpstreamBinding> {
    const out = new Map<string, UpstreamBinding>();
    const origin = { cluster: this.host.cluster(), vhost: this.vhost, exchange: this.name, suffix: this.suffix, maxHops: this.upstream.maxHops, upstreamCluster, upstreamVhost };
    for (const b of this.exchange.bindings.values()) {
      const args = upstreamBindingArgs(b.args, origin);
      if (args === null) continue;
      out.set(`${b.routingKey}\0${canonicalJson(args)}`, { key: b.routingKey, args });
    }
    return out;
  }

  private async syncBindings(up: Endpoint): Promise<void> {
    const want = this.wanted(this.upstreamVhost, null);
    for (const [k, b] of this.bound) {
      if (want.has(k)) continue;
      await up.unbindExchange(this.internal, this.upstream.exchange, b.key, b.args);
      this.bound.delete(k);
    }
    for (const [k, b] of want) {
      if (this.bound.has(k)) continue;
      await up.bindExchange(this.internal, this.upstream.exchange, b.key, b.args);
      this.bound.set(k, b);
    }
  }

  /** The routing keys bound upstream now (tests, and rabbit_federation_exchange_link:list_routing_keys). */
  routingKeys(): string[] {
    return [...this.bound.values()].map((b) => b.key).sort();
  }

  private deliver(d: LinkDelivery, upstreamVhost: string): void {
    const headers = d.properties.headers;
    if (!shouldForward(headers, this.upstream.maxHops, this.host.cluster(), this.vhost)) {
      this.drop(d);
      return;
    }
    const hop = { uri: this.uri, clusterName: null, vhost: upstreamVhost };
    const { userId, ...rest } = d.properties;
    const properties = { ...rest, ...(this.upstream.trustUserId && userId !== undefined ? { userId } : {}), headers: exchangeHopHeaders(headers, hop, this.upstream.exchange, d.redelivered) };
    this.forward(d, this.name, d.routingKey, properties);
  }

  protected disconnected(): void {
    this.bound = new Map();
    this.chain = Promise.resolve();
  }

  protected async cleanupUpstream(up: Endpoint): Promise<void> {
    if (this.queue !== "") await up.deleteQueue(this.queue);
    if (this.internal !== "") await up.deleteExchange(this.internal);
  }
}
