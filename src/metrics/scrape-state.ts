/**
 * What one scrape reads: the broker's live objects, each gathered at most once per scrape and
 * only when a family asks for it (a /metrics/detailed request for queue families never builds
 * connection snapshots).
 */
import type { Broker, ChannelInfo, ConnectionInfo, ResourceAlarms, Queue } from "../broker/index.js";
import { nodeFigures, type NodeFigures } from "./node-figures.js";
import type { ClusterRole } from "./cluster-families.js";
import type { ListenerStatuses } from "../listeners/listener-status.js";
import type { FederationLinkFigures } from "./federation-families.js";
import type { ShovelStatus } from "../shovel/shovels.js";

/** What the metrics endpoint is given at start (its narrow view of the running broker). */
export interface MetricsSource {
  readonly broker: Broker;
  readonly alarms: ResourceAlarms;
  /** The data dir, whose file system's free space is reported. */
  readonly dataDir: string;
  /** rabbitmq_node and rabbitmq_cluster (the management API's node and cluster_name). */
  readonly node: string;
  readonly cluster: string;
  /** In a cluster, this node's role (it leads while it has a broker); absent on a single node. */
  readonly clusterRole?: () => ClusterRole;
  /** The node's listeners, bound or not (coney_listener_up). */
  readonly listeners?: ListenerStatuses;
  /** The node's federation links (coney_federation_*); absent when it runs no federation service. */
  readonly federationLinks?: () => readonly FederationLinkFigures[];
  /** The node's dynamic shovels (coney_shovel_*). */
  readonly shovels?: () => readonly ShovelStatus[];
}

export class ScrapeState {
  private queuesCache: Queue[] | null = null;
  private connectionsCache: ConnectionInfo[] | null = null;
  private channelsCache: ChannelInfo[] | null = null;
  private nodeCache: NodeFigures | null = null;

  constructor(readonly source: MetricsSource) {}

  get broker(): Broker {
    return this.source.broker;
  }

  queues(): Queue[] {
    if (this.queuesCache === null) {
      const all: Queue[] = [];
      // A queue led by another node (`--workers`) is that node's to report, as each RabbitMQ node
      // reports the queues it leads: summed over the nodes, every queue counts once.
      for (const v of this.broker.vhosts.values()) for (const q of v.queues.values()) if (!q.leadsElsewhere) all.push(q);
      this.queuesCache = all;
    }
    return this.queuesCache;
  }

  connections(): ConnectionInfo[] {
    if (this.connectionsCache === null) this.connectionsCache = this.broker.connections.list().map((c) => c.info());
    return this.connectionsCache;
  }

  node(): NodeFigures {
    return (this.nodeCache ??= nodeFigures(this.source.dataDir));
  }

  channels(): ChannelInfo[] {
    if (this.channelsCache === null) this.channelsCache = this.connections().flatMap((c) => c.channels);
    return this.channelsCache;
  }
}
