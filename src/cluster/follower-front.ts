/**
 * What a node serves while it does not lead (docs/CLUSTERING.md, "Clients" and "Prometheus"):
 * its client ports (every protocol's, client-ports.ts), forwarded to the leader by a ClientProxy
 * (the HTTP port answers the follower's own health checks), and its own Prometheus port with its
 * identity and role. The
 * ports bound the first time (0 = ephemeral) are kept for the node's life: when the node is
 * elected it closes this front and the leader's broker binds the same ports.
 *
 * Listeners by importance (src/listeners): at the node's first start the AMQP port is essential
 * (a node that cannot bind it does not start, as a single broker would not); every other port,
 * and every port reopened after leading, is a side listener — retried with back-off, one log line
 * per port per 10 s, reported by coney_listener_up — never retried on every cluster tick.
 */
import type { ConeyConfig } from "../config/config.js";
import type { Logger } from "../logging/logger.js";
import { listenNodeMetrics, type ClusterRole, type MetricsListener } from "../metrics/index.js";
import { tlsFilesOf } from "../tls/tls-files.js";
import { SideListeners, type OpenListener } from "../listeners/side-listeners.js";
import type { ListenerStatus } from "../listeners/listener-status.js";
import { ClientProxy, type LocalResponder, type ProxyTarget } from "./client-proxy.js";
import { CLIENT_PORTS, wantedPorts, type ClientPorts } from "./client-ports.js";

export type { ClientPorts };

export class FollowerFront {
  private proxy: ClientProxy | null = null;
  /** The AMQP listener opened at the first start (outside the supervisor: it was essential then). */
  private firstAmqp: OpenListener | null = null;
  private side: SideListeners | null = null;
  private target: ProxyTarget | null = null;
  /** The client ports, fixed by their first bind. */
  ports: ClientPorts = {};
  /** The Prometheus port, fixed by the first successful listen; null: no Prometheus listener. */
  metricsPort: number | null;

  constructor(
    private readonly config: ConeyConfig,
    private readonly logger: Logger,
    private readonly localHealth: LocalResponder,
    private readonly role: () => ClusterRole,
    /** Listeners of this node served by others while it follows (its stream front), reported with its own. */
    private readonly others: () => ListenerStatus[] = () => [],
  ) {
    this.metricsPort = config.prometheusPort;
  }

  /** First opening: the AMQP port must bind (else the node does not start); the rest are side listeners. */
  async start(): Promise<void> {
    const proxy = this.newProxy();
    this.firstAmqp = await proxy.listenOne("amqp", this.config.amqpPort, this.config.bind);
    this.ports.amqp = this.firstAmqp.port;
    this.proxy = proxy;
    await this.openSide(proxy, this.wantedPorts(false));
  }

  /** Opens what is not open (after leading): every port a side listener, retried by the supervisor. */
  async reopen(): Promise<void> {
    if (this.proxy !== null) return;
    const proxy = this.newProxy();
    this.proxy = proxy;
    proxy.setTarget(this.target);
    await this.openSide(proxy, this.wantedPorts(true));
  }

  /** The follower's own listeners: its client ports and its Prometheus port, bound or being retried. */
  statuses(): ListenerStatus[] {
    const first = this.firstAmqp ? [{ protocol: "amqp", port: this.firstAmqp.port, up: true, reason: null }] : [];
    return [...first, ...(this.side?.statuses() ?? []), ...this.others()];
  }

  /** The leader to forward to (null: none known; connections wait). */
  setTarget(target: ProxyTarget | null): void {
    this.target = target;
    this.proxy?.setTarget(target);
  }

  /** Frees every port (the node is about to lead, or is stopping). */
  async close(): Promise<void> {
    // The proxy first: it drops the piped connections, without which its servers' close would
    // wait for every client to leave; then the supervisor's retries and handles.
    await this.proxy?.close();
    this.proxy = null;
    await this.side?.close();
    this.side = null;
    await this.firstAmqp?.close();
    this.firstAmqp = null;
    this.target = null;
  }

  private newProxy(): ClientProxy {
    return new ClientProxy(this.config.etcdLeaseTtl * 1000, this.localHealth, this.config.httpTls ? tlsFilesOf(this.config) : null);
  }

  /** The client ports to listen on: once bound, the same ports for the node's life. */
  private wantedPorts(withAmqp: boolean): ReturnType<typeof wantedPorts> {
    return wantedPorts(this.config, this.ports).filter(([kind]) => withAmqp || kind !== "amqp");
  }

  private async openSide(proxy: ClientProxy, wanted: ReturnType<typeof wantedPorts>): Promise<void> {
    const side = new SideListeners(this.logger);
    this.side = side;
    for (const [kind, port] of wanted) {
      await side.add({
        protocol: CLIENT_PORTS[kind].protocol,
        port,
        open: () => proxy.listenOne(kind, port, this.config.bind),
        opened: (l) => {
          if (this.side === side) this.ports[kind] = l.port;
        },
      });
    }
    const metricsPort = this.metricsPort;
    if (metricsPort === null) return;
    const tls = this.config.httpTls ? tlsFilesOf(this.config) : null;
    await side.add({
      protocol: tls ? "https/prometheus" : "http/prometheus",
      port: metricsPort,
      open: (): Promise<MetricsListener> => listenNodeMetrics({ node: this.config.nodeName, cluster: this.config.clusterName }, this.role, () => this.statuses(), { port: metricsPort, bind: this.config.bind, tls }, this.logger),
      // An ephemeral port, once bound, is this node's for life (the leader's broker binds it too).
      opened: (l) => {
        if (this.side === side) this.metricsPort = l.port;
      },
    });
  }
}
