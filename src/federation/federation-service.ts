/**
 * The federation service: registers the `federation-upstream` and `federation-upstream-set`
 * runtime-parameter components, and keeps one link per (federated exchange or queue, upstream)
 * by reconciling what policies and parameters ask for with the links it runs (docs/FEDERATION.md,
 * "What makes a link"). It runs wherever the broker runs — in a cluster, on the leader only.
 */
import type { Broker, DomainEvent, Exchange, Queue } from "../broker/index.js";
import { canonicalJson } from "../broker/index.js";
import type { Endpoint, EndpointOptions } from "../links/endpoint.js";
import type { Logger } from "../logging/logger.js";
import { ExchangeLink } from "./exchange-link.js";
import { FederationLink, type LinkHost } from "./link.js";
import { QueueLink } from "./queue-link.js";
import { linkId, linkRecord } from "./link-status.js";
import { federates, upstreamsFor, type Upstream } from "./upstream-config.js";
import { validateUpstream, validateUpstreamSet, type UriCheck } from "./upstream-validation.js";

export const UPSTREAM_COMPONENT = "federation-upstream";
export const UPSTREAM_SET_COMPONENT = "federation-upstream-set";

/** Events after which the set of links may differ. */
const TOPOLOGY_EVENTS = new Set(["policy.set", "policy.cleared", "exchange.created", "exchange.deleted", "queue.created", "queue.deleted", "vhost.deleted", "vhost.created"]);

/** How often federated queues' demand is checked (queue-link.ts). */
const DEMAND_INTERVAL_MS = 50;

export interface FederationDeps {
  readonly broker: Broker;
  readonly logger: Logger;
  /** This broker's cluster name, as it stands now (the cluster_name parameter may change it). */
  cluster(): string;
  checkUri: UriCheck;
  openUpstream(uri: string, vhost: string, opts: EndpointOptions): Promise<Endpoint>;
  upstreamVhost(uri: string, vhost: string): string;
  openDownstream(vhost: string, opts: EndpointOptions): Promise<Endpoint>;
}

interface Wanted {
  readonly kind: "exchange" | "queue";
  readonly resource: Exchange | Queue;
  readonly upstream: Upstream;
  readonly policy: string;
  readonly config: string;
}

interface Running {
  readonly link: FederationLink;
  readonly config: string;
  readonly resource: Exchange | Queue;
}

export class FederationService {
  private readonly links = new Map<string, Running>();
  private readonly unregister: (() => void)[] = [];
  private reconcileQueued = false;
  private demandTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly host: LinkHost;
  /** Told when a link's status changes (metrics could listen; the API reads on demand). */
  onChange: ((link: FederationLink) => void) | null = null;

  constructor(private readonly deps: FederationDeps) {
    this.host = {
      logger: deps.logger,
      cluster: deps.cluster,
      openUpstream: deps.openUpstream,
      upstreamVhost: deps.upstreamVhost,
      openDownstream: deps.openDownstream,
      changed: (link) => this.onChange?.(link),
      suffixes: new Map(),
    };
  }

  /** Registers the components; call before the saved definitions are restored. */
  register(): void {
    const { broker, checkUri } = this.deps;
    const changed = (): void => this.scheduleReconcile();
    this.unregister.push(
      broker.parameterComponents.register({ component: UPSTREAM_COMPONENT, validate: (_v, name, value) => validateUpstream(name, value, checkUri), set: changed, cleared: changed }),
      broker.parameterComponents.register({ component: UPSTREAM_SET_COMPONENT, validate: (_v, name, value) => validateUpstreamSet(name, value), set: changed, cleared: changed }),
      broker.events.subscribe((e: DomainEvent) => {
        if (e.name !== null && TOPOLOGY_EVENTS.has(e.name)) this.scheduleReconcile();
      }),
    );
  }

  /** Starts the links the restored definitions ask for. */
  start(): void {
    this.scheduleReconcile();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const u of this.unregister.splice(0)) u();
    this.deps.broker.events.wantDetail(this, false);
    if (this.demandTimer) clearInterval(this.demandTimer);
    this.demandTimer = null;
    const running = [...this.links.values()];
    this.links.clear();
    for (const r of running) this.detach(r);
    // A broker stopping keeps the upstream queues (they collect until it is back).
    await Promise.allSettled(running.map((r) => r.link.stop(false)));
  }

  /** Every link, for coneyctl, the UI and metrics. */
  list(): FederationLink[] {
    return [...this.links.values()].map((r) => r.link);
  }

  /** Each link's status and counts, for the metrics (coney_federation_*). */
  figures(): { vhost: string; type: "exchange" | "queue"; resource: string; upstream: string; status: "starting" | "running" | "error"; forwarded: number; dropped: number }[] {
    return this.list().map((l) => ({ vhost: l.vhost, type: l.kind, resource: l.name, upstream: l.upstream.name, status: l.state, forwarded: l.forwarded, dropped: l.dropped }));
  }

  /** Every link as the API shows it (link-status.ts). */
  records(node: string): Record<string, unknown>[] {
    return this.list().map((l) => linkRecord(l, node));
  }

  scheduleReconcile(): void {
    if (this.reconcileQueued || this.stopped) return;
    this.reconcileQueued = true;
    setImmediate(() => {
      this.reconcileQueued = false;
      if (!this.stopped) this.reconcile();
    });
  }

  /** Brings the running links in line with the policies and parameters (see the module comment). */
  reconcile(): void {
    const wanted = this.wanted();
    for (const [key, r] of this.links) {
      const w = wanted.get(key);
      if (w && w.config === r.config && w.resource === r.resource) continue;
      this.links.delete(key);
      this.detach(r);
      // A link that goes because it is no longer wanted cleans up upstream; a changed one is replaced.
      void r.link.stop(w === undefined);
    }
    for (const [key, w] of wanted) {
      if (this.links.has(key)) continue;
      const link = w.kind === "exchange" ? new ExchangeLink(this.host, w.resource as Exchange, w.upstream, w.policy) : new QueueLink(this.host, w.resource as Queue, w.upstream, w.policy);
      const r: Running = { link, config: w.config, resource: w.resource };
      this.links.set(key, r);
      this.attach(r);
      link.start();
    }
    this.updateDemandTimer();
  }

  private wanted(): Map<string, Wanted> {
    const { broker } = this.deps;
    const out = new Map<string, Wanted>();
    let anyUpstream = false;
    for (const v of broker.vhosts.values()) {
      const upstreams = v.parameters.get(UPSTREAM_COMPONENT);
      if (!upstreams || upstreams.size === 0) continue;
      anyUpstream = true;
      const sets = v.parameters.get(UPSTREAM_SET_COMPONENT);
      const consider = (kind: "exchange" | "queue", r: Exchange | Queue): void => {
        // RabbitMQ never federates federation's own resources, nor the default exchange.
        if (r.arguments["x-internal-purpose"] !== undefined || r.name === "") return;
        const applied = broker.policyOf(r);
        if (!federates(applied.definition)) return;
        for (const upstream of upstreamsFor(applied.definition, r.name, upstreams, sets)) {
          const key = `${kind}\0${v.name}\0${r.name}\0${upstream.name}`;
          out.set(key, { kind, resource: r, upstream, policy: applied.policy?.name ?? "", config: canonicalJson(upstream) });
        }
      };
      for (const x of v.exchanges.values()) consider("exchange", x);
      for (const q of v.queues.values()) if (q.type !== "stream") consider("queue", q);
    }
    // The topology events are built only while someone wants them: while any vhost has an upstream.
    broker.events.wantDetail(this, anyUpstream);
    return out;
  }

  /** Exchanges whose bindingsWatcher is this service's. */
  private readonly watched = new WeakSet<Exchange>();

  private attach(r: Running): void {
    if (!(r.link instanceof ExchangeLink)) return;
    const x = r.resource as Exchange;
    if (this.watched.has(x)) return;
    // The event exchange (amq.rabbitmq.event) keeps its own watcher; federating it is not supported.
    if (x.bindingsWatcher !== null) {
      this.deps.logger.warn("federation cannot follow the bindings of this exchange", { vhost: x.vhost, exchange: x.name });
      return;
    }
    this.watched.add(x);
    x.bindingsWatcher = () => this.bindingsChanged(x);
  }

  private detach(r: Running): void {
    if (!(r.link instanceof ExchangeLink)) return;
    const x = r.resource as Exchange;
    if (!this.watched.has(x) || [...this.links.values()].some((o) => o.resource === x)) return;
    this.watched.delete(x);
    x.bindingsWatcher = null;
  }

  private bindingsChanged(x: Exchange): void {
    for (const r of this.links.values()) if (r.resource === x && r.link instanceof ExchangeLink) r.link.bindingsChanged();
  }

  private updateDemandTimer(): void {
    const queues = [...this.links.values()].some((r) => r.link instanceof QueueLink);
    if (queues && !this.demandTimer) {
      this.demandTimer = setInterval(() => {
        for (const r of this.links.values()) if (r.link instanceof QueueLink) r.link.checkDemand();
      }, DEMAND_INTERVAL_MS);
      this.demandTimer.unref?.();
    } else if (!queues && this.demandTimer) {
      clearInterval(this.demandTimer);
      this.demandTimer = null;
    }
  }

  /** Restarts one link by its id (the API's DELETE …/restart). Returns false when there is none. */
  restart(vhost: string, id: string): boolean {
    for (const r of this.links.values()) {
      if (r.link.vhost === vhost && linkId(r.link) === id) {
        r.link.restart();
        return true;
      }
    }
    return false;
  }
}
