/**
 * What a node serves while it does not lead (docs/CLUSTERING.md, "Clients" and "Prometheus"):
 * its client ports, forwarded to the leader by a ClientProxy (which answers the follower's own
 * health checks on the HTTP port), and its own Prometheus port with its identity and role. The
 * ports bound the first time (0 = ephemeral) are kept for the node's life: when the node is
 * elected it closes this front and the leader's broker binds the same ports. The Prometheus port
 * is a side listener (src/listeners): one that cannot bind is retried with back-off and reported
 * by coney_listener_up, never retried on every tick.
 */
import type { ConeyConfig } from "../config/config.js";
import type { Logger } from "../logging/logger.js";
import { listenNodeMetrics, type ClusterRole, type MetricsListener } from "../metrics/index.js";
import { tlsFilesOf } from "../tls/tls-files.js";
import { SideListeners } from "../listeners/side-listeners.js";
import type { ListenerStatus } from "../listeners/listener-status.js";
import { ClientProxy, type ClientPortKind, type LocalResponder, type ProxyTarget } from "./client-proxy.js";

export type ClientPorts = Partial<Record<ClientPortKind, number>>;

export class FollowerFront {
  private proxy: ClientProxy | null = null;
  private metrics: SideListeners | null = null;
  private target: ProxyTarget | null = null;
  /** The client ports, fixed by start(). */
  ports: ClientPorts = {};
  /** The Prometheus port, fixed by the first successful listen; null: no Prometheus listener. */
  metricsPort: number | null;

  constructor(
    private readonly config: ConeyConfig,
    private readonly logger: Logger,
    private readonly localHealth: LocalResponder,
    private readonly role: () => ClusterRole,
  ) {
    this.metricsPort = config.prometheusPort;
  }

  /** First opening: a client port that cannot be bound stops the node (as a single broker's would). */
  async start(): Promise<void> {
    const wanted: ClientPorts = { amqp: this.config.amqpPort };
    if (this.config.httpPort !== null) wanted.http = this.config.httpPort;
    if (this.config.tlsCert) wanted.amqps = this.config.amqpsPort;
    const proxy = new ClientProxy(this.config.etcdLeaseTtl * 1000, this.localHealth, this.config.httpTls ? tlsFilesOf(this.config) : null);
    this.ports = await proxy.listen(wanted, this.config.bind);
    this.proxy = proxy;
    await this.openScrapes();
  }

  /** Opens what is not open (after leading, or after a failure); failures are logged and retried at the next call. */
  async reopen(): Promise<void> {
    if (this.proxy === null) {
      const proxy = new ClientProxy(this.config.etcdLeaseTtl * 1000, this.localHealth, this.config.httpTls ? tlsFilesOf(this.config) : null);
      try {
        await proxy.listen(this.ports, this.config.bind);
        this.proxy = proxy;
        proxy.setTarget(this.target);
      } catch (err) {
        this.logger.error("cluster: could not listen for clients; retrying", { err: (err as Error).message });
      }
    }
    if (this.metrics === null) await this.openScrapes();
  }

  /** The follower's own listeners: its client ports while the proxy listens, and its Prometheus port. */
  statuses(): ListenerStatus[] {
    const proxying = this.proxy !== null;
    const client = (Object.entries(this.ports) as Array<[ClientPortKind, number]>).map(([kind, port]) => ({
      protocol: kind === "amqps" ? "amqp/ssl" : kind,
      port,
      up: proxying,
      reason: proxying ? null : "the client ports could not be bound",
    }));
    return [...client, ...(this.metrics?.statuses() ?? [])];
  }

  /** The leader to forward to (null: none known; connections wait). */
  setTarget(target: ProxyTarget | null): void {
    this.target = target;
    this.proxy?.setTarget(target);
  }

  /** Frees every port (the node is about to lead, or is stopping). */
  async close(): Promise<void> {
    await this.proxy?.close();
    this.proxy = null;
    await this.metrics?.close();
    this.metrics = null;
    this.target = null;
  }

  private async openScrapes(): Promise<void> {
    const port = this.metricsPort;
    if (port === null) return;
    const tls = this.config.httpTls ? tlsFilesOf(this.config) : null;
    const metrics = new SideListeners(this.logger);
    this.metrics = metrics;
    await metrics.add({
      protocol: tls ? "https/prometheus" : "http/prometheus",
      port,
      open: (): Promise<MetricsListener> => listenNodeMetrics({ node: this.config.nodeName, cluster: this.config.clusterName }, this.role, () => this.statuses(), { port, bind: this.config.bind, tls }, this.logger),
      // An ephemeral port, once bound, is this node's for life (the leader's broker binds it too).
      opened: (l) => {
        if (this.metrics === metrics) this.metricsPort = l.port;
      },
    });
  }
}
