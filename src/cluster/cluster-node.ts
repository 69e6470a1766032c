/**
 * One node of a Coney cluster (docs/CLUSTERING.md): its state machine over etcd. Every 200 ms it
 * reads the cluster's keys; a follower mirrors the leader's store and forwards client
 * connections to it; with no leader, a node listed in sync (whose copy is complete) campaigns;
 * the winner boots the ordinary broker on its copy with the store's replication hook attached.
 * A leader that can no longer prove its lease, or that etcd refuses, fences itself: it closes its
 * broker and rejoins as a follower.
 */
import type { Server } from "node:net";
import { startBroker, type RunningBroker } from "../start-broker.js";
import type { ConeyConfig } from "../config/config.js";
import type { Logger } from "../logging/logger.js";
import type { LocalResponder } from "./client-proxy.js";
import { FollowerFront, type ClientPorts } from "./follower-front.js";
import { leaderPortSettings } from "./client-ports.js";
import { followerResponder, quorumCriticalReason } from "./local-health.js";
import { forgetNode } from "./forget-node.js";
import { clusterMembers, EMPTY_STATE, parseClusterState, tlsStreamPortAt, type ClusterState, type InSyncValue, type MemberInfo } from "./cluster-state.js";
import { vouchedCertificate, type ForwardedCertificate } from "../auth/forwarded-certificate.js";
import { ownVersion, type ClusterMember, type ClusterView, type ForgetOutcome } from "../broker/index.js";
import { ClusterKeys, EtcdSession, withTimeout } from "./etcd-session.js";
import { ReplicationFollower, copyIncomplete } from "./replication-follower.js";
import { ReplicationLeader } from "./replication-leader.js";
import { clusterSecret } from "./replication-auth.js";
import { replicationTransport, type ReplicationTransport } from "./replication-transport.js";
import { StreamCommits } from "./stream-commits.js";
import { StreamFront } from "./stream-front.js";
import { tlsFilesOf, tlsServerOptions } from "../tls/tls-files.js";

export type NodeState = "starting" | "follower-syncing" | "follower-in-sync" | "leader" | "fenced";

const TICK_MS = 200;
/** A leader that failed to prove the cluster's secret is tried again only after this long (not every tick). */
const REFUSAL_BACKOFF_MS = 5000;

export class ClusterNode implements ClusterView {
  state: NodeState = "starting";
  private readonly session: EtcdSession;
  private readonly keys: ClusterKeys;
  private readonly me: string;
  private readonly transport: ReplicationTransport;
  private view: ClusterState = EMPTY_STATE;
  private readonly front: FollowerFront;
  /** How far each stream is committed here (followers' consumers read that far); kept across roles. */
  private readonly commits = new StreamCommits();
  /** The stream port while this node does not lead (and its connections from then); null: no stream port. */
  readonly streamFront: StreamFront | null;
  private clusterPort = 0;
  private replServer: Server | null = null;
  private follower: ReplicationFollower | null = null;
  private replication: ReplicationLeader | null = null;
  private broker: RunningBroker | null = null;
  /** The leader's broker while it boots: a fence that comes meanwhile waits for it, then closes it. */
  private booting: Promise<RunningBroker | null> | null = null;
  private epoch = 0;
  private refusedAt = -Infinity;
  /**
   * Until when this node stays out of elections: its broker could not start as leader (its AMQP
   * port, the one essential listener, could not be bound). Two lease TTLs let a node that can
   * serve win instead of this one winning and failing again.
   */
  private campaignHeldUntil = -Infinity;
  private secret: Buffer = Buffer.alloc(0);
  private needLease = false;
  private busy = false;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly config: ConeyConfig,
    private readonly logger: Logger,
  ) {
    this.me = config.nodeName;
    this.keys = ClusterKeys.of(config.clusterName);
    this.transport = replicationTransport(config);
    this.front = new FollowerFront(config, logger, this.followerHealth(), () => ({ leader: false, inSync: this.view.inSync?.nodes.includes(this.me) ?? false }), () => this.streamFront?.statuses() ?? []);
    const tls = tlsFilesOf(config);
    this.streamFront =
      config.streamPort === null
        ? null
        : new StreamFront({ port: config.streamPort, tlsPort: config.streamTlsPort, tls: tls === null ? null : tlsServerOptions(tls) }, config.bind, config.dataDir, this.commits, config.etcdLeaseTtl * 1000, logger, () => this.streamEndpoint()?.advertised ?? null, (host, port) => tlsStreamPortAt(this.view, this.streamEndpoint(), host, port), () => void this.register().catch(() => undefined), { from: config.sslCertLoginFrom, secret: () => this.secret });
    this.session = new EtcdSession(config.etcdEndpoints, config.etcdLeaseTtl, logger);
    this.session.onLost = () => {
      this.needLease = true;
      if (this.state === "leader") void this.fence("etcd lease lost");
    };
  }

  /** The client ports this node serves (as proxy or as leader); fixed for the node's life. */
  get clientPorts(): Readonly<ClientPorts> {
    return this.front.ports;
  }

  get runningBroker(): RunningBroker | null {
    return this.broker;
  }

  async start(): Promise<void> {
    await this.session.atStart("lease grant", () => this.session.grant());
    this.secret = await this.session.atStart("cluster secret", () => clusterSecret(this.session, this.keys));
    this.replServer = this.transport.server((s) => (this.replication ? this.replication.accept(s) : s.destroy()));
    this.replServer.on("tlsClientError", (err: Error) => this.logger.warn("cluster: replication TLS handshake failed", { err: err.message }));
    await new Promise<void>((resolve, reject) => {
      this.replServer!.once("error", reject);
      this.replServer!.listen(this.config.clusterPort, this.config.bind === "" ? undefined : this.config.bind, () => resolve());
    });
    const a = this.replServer.address();
    this.clusterPort = typeof a === "object" && a ? a.port : this.config.clusterPort;
    await this.front.start();
    await this.streamFront?.listen();
    await this.session.atStart("register", () => withTimeout(this.session.client.put(this.keys.known(this.me)).value(JSON.stringify({ name: this.me })).exec(), this.session.callTimeout, "register"));
    await this.session.atStart("register as a member", () => this.register());
    if (this.streamFront) this.streamFront.registered = true;
    this.logger.info("cluster: node started", { node: this.me, cluster: this.config.clusterName, ports: this.front.ports, clusterPort: this.clusterPort, clusterTls: this.transport.tls, prometheusPort: this.front.metricsPort });
    this.schedule(0);
  }

  members(): ClusterMember[] {
    return clusterMembers(this.view, this.me, this.streamEndpoint());
  }

  /** The certificate a follower's stream port vouched for under the cluster's secret (auth/forwarded-certificate.ts); null when not vouched. */
  certificateVouchedFor(data: Buffer | null): ForwardedCertificate | null {
    return vouchedCertificate(this.secret, data);
  }

  /** `coneyctl forget_cluster_node` (forget-node.ts). */
  async forget(node: string): Promise<ForgetOutcome> {
    const { outcome, view } = await forgetNode({ me: this.me, session: this.session, keys: this.keys, epoch: this.epoch, view: this.view }, node);
    this.view = view;
    if (outcome === "forgotten") this.logger.info("cluster: node forgotten", { node });
    return outcome;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.replication?.fence();
    await this.broker?.close();
    this.broker = null;
    this.follower?.close();
    await this.front.close();
    await this.streamFront?.close();
    this.replServer?.close();
    // Revoking the lease deletes the leader key at once: the next leader need not wait a TTL.
    await this.session.close();
  }

  /** This node's stream port, bound and advertised (--stream-advertised-host/port, else the node's address and port). */
  private streamEndpoint(): MemberInfo["stream"] {
    const port = this.streamFront?.port ?? null;
    if (port === null) return undefined;
    return { port, advertised: { host: this.config.streamAdvertisedHost ?? this.config.advertiseAddress, port: this.config.streamAdvertisedPort ?? port, tlsPort: this.streamFront?.tlsPort ?? null } };
  }

  private async register(): Promise<void> {
    const info: MemberInfo = { name: this.me, host: this.config.advertiseAddress, ports: this.front.ports, clusterPort: this.clusterPort, stream: this.streamEndpoint(), version: ownVersion() };
    await withTimeout(this.session.client.put(this.keys.member(this.me)).value(JSON.stringify(info)).lease(this.session.leaseId).exec(), this.session.callTimeout, "register");
  }

  private schedule(ms = TICK_MS): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    if (this.busy || this.closed) return this.schedule();
    this.busy = true;
    try {
      await this.step();
    } catch (err) {
      this.logger.debug("cluster: step failed; retrying", { err: (err as Error).message });
    } finally {
      this.busy = false;
      this.schedule();
    }
  }

  private async step(): Promise<void> {
    if (this.needLease && this.state !== "leader") {
      await this.session.grant();
      this.needLease = false;
      await this.register();
    }
    const res = await withTimeout(this.session.client.getAll().prefix(this.keys.prefix).exec(), this.session.callTimeout, "read cluster state");
    this.view = parseClusterState(this.keys, res.kvs);
    if (this.closed) return;
    if (this.state === "leader") {
      if (this.view.leader !== this.me) await this.fence("etcd names another leader");
      return;
    }
    if (this.state === "fenced") return;
    await this.front.reopen();
    const leader = this.view.leader;
    if (leader !== null && leader !== this.me) {
      const info = this.view.members.get(leader);
      if (info) this.follow(info);
      return;
    }
    if (leader === this.me) return; // our own key from before a restart: it expires with that lease
    this.stopFollowing();
    this.front.setTarget(null);
    this.streamFront?.setLeader(null);
    if (this.eligible() && performance.now() >= this.campaignHeldUntil) await this.campaign();
  }

  /** Followers a confirm needs: the flag, or a majority of the known nodes minus the leader. */
  private minInSync(): number {
    return this.config.minInSyncReplicas ?? Math.floor(Math.max(this.view.known.length, 1) / 2);
  }

  /** While following, this node's own answers to the health checks only it can give (local-health.ts). */
  private followerHealth(): LocalResponder {
    return followerResponder(this.config, { me: this.me, leader: () => (this.view.leader === this.me ? null : this.view.leader), quorumCritical: () => quorumCriticalReason(this.me, this.view.inSync, this.minInSync()) });
  }

  /** Only a node holding every confirmed message may lead: listed in sync, with a complete copy. */
  private eligible(): boolean {
    const inSync = this.view.inSync;
    if (copyIncomplete(this.config.dataDir)) return false;
    return inSync === null || inSync.nodes.includes(this.me);
  }

  private follow(info: MemberInfo): void {
    this.front.setTarget({ host: info.host, ports: info.ports });
    this.streamFront?.setLeader(info.stream ? { host: info.host, port: info.stream.port } : null);
    const f = this.follower;
    const refusedLately = performance.now() - this.refusedAt < REFUSAL_BACKOFF_MS;
    if ((!f || f.closed) && refusedLately) return;
    if (!f || f.closed || f.target.leader !== info.name || f.target.host !== info.host || f.target.port !== info.clusterPort) {
      f?.close();
      this.logger.info("cluster: following", { leader: info.name });
      this.follower = new ReplicationFollower({ leader: info.name, host: info.host, port: info.clusterPort }, this.me, this.secret, this.transport, this.config.dataDir, this.logger, (closed) => {
        if (closed.refused) this.refusedAt = performance.now();
        if (this.follower === closed) this.follower = null;
      }, this.commits);
    }
    this.state = this.follower?.synced && this.view.inSync?.nodes.includes(this.me) ? "follower-in-sync" : "follower-syncing";
  }

  private stopFollowing(): void {
    this.follower?.close();
    this.follower = null;
  }

  private async campaign(): Promise<void> {
    const c = this.session.client;
    const value: InSyncValue = { leader: this.me, nodes: [this.me] };
    // One transaction: no leader yet, and the in-sync set is still the one that lists us.
    const res = await withTimeout(
      c
        .if(this.keys.leader, "Create", "==", 0)
        .and(this.keys.insync, "Mod", "==", this.view.inSyncRevision)
        .then(c.put(this.keys.leader).value(this.me).lease(this.session.leaseId), c.put(this.keys.insync).value(JSON.stringify(value)))
        .commit(),
      this.session.callTimeout,
      "campaign",
    );
    if (!res.succeeded) return;
    this.epoch = Number(res.header?.revision ?? 0);
    this.logger.info("cluster: elected leader", { node: this.me, epoch: this.epoch });
    await this.promote();
  }

  private async promote(): Promise<void> {
    this.state = "leader";
    this.stopFollowing();
    await this.front.close();
    await this.streamFront?.stopListening();
    const replication = new ReplicationLeader(
      this.config.dataDir,
      this.secret,
      {
        writeInSync: (followers) => this.writeInSync(followers),
        minInSync: () => this.minInSync(),
        leaseValid: () => this.session.leaseValid,
        leaseExpired: () => this.session.leaseExpired,
        deposed: (why) => void this.fence(why),
        ackTimeoutMs: this.config.replicaAckTimeout,
      },
      this.logger,
      this.commits,
    );
    this.replication = replication;
    const started = performance.now();
    this.booting = startBroker({
      ...this.config,
      // Every client port where this node's front bound it (clients reconnect to the same address).
      ...leaderPortSettings(this.front.ports),
      prometheusPort: this.front.metricsPort,
      streamPort: this.streamFront?.port ?? this.config.streamPort,
      streamTlsPort: this.streamFront?.tlsPort ?? this.config.streamTlsPort,
      // Metadata names the leader as the members' keys name every node (the followers' fronts map it).
      streamAdvertisedHost: this.config.streamAdvertisedHost ?? this.config.advertiseAddress,
      logger: this.logger,
      replica: replication,
      clusterView: this,
    }).catch((err: unknown) => {
      this.logger.error("cluster: could not start the broker as leader", { err: (err as Error).message });
      return null;
    });
    const broker = await this.booting;
    this.booting = null;
    // Fenced while booting (a lease lost under load): fence() has closed this broker already.
    if (this.state !== "leader") return;
    if (broker === null) {
      this.campaignHeldUntil = performance.now() + 2 * this.config.etcdLeaseTtl * 1000;
      return this.fence("broker failed to start");
    }
    this.broker = broker;
    // Stream clients that came while this node followed now reach its own broker.
    const port = this.streamFront?.port ?? null;
    if (port !== null) this.streamFront?.setLeader({ host: this.config.bind === "" || this.config.bind === "0.0.0.0" ? "127.0.0.1" : this.config.bind, port });
    this.logger.info("cluster: serving as leader", { node: this.me, bootMs: Math.round(performance.now() - started) });
  }

  private async writeInSync(followers: readonly string[]): Promise<boolean> {
    const c = this.session.client;
    const value: InSyncValue = { leader: this.me, nodes: [this.me, ...followers] };
    const res = await withTimeout(
      c.if(this.keys.leader, "Create", "==", this.epoch).then(c.put(this.keys.insync).value(JSON.stringify(value))).commit(),
      this.session.callTimeout,
      "write in-sync set",
    );
    return res.succeeded === true;
  }

  /** Stops leading: no confirm after this, clients disconnected, then back to following. */
  private async fence(why: string): Promise<void> {
    if (this.state !== "leader") return;
    this.state = "fenced";
    this.logger.warn("cluster: leadership lost; fencing this node", { why });
    this.replication?.fence();
    this.replication = null;
    // A broker still booting holds (or is about to hold) the client ports: wait for it, then close it.
    const broker = this.broker ?? (this.booting ? await this.booting : null);
    this.broker = null;
    await withTimeout(broker?.close() ?? Promise.resolve(), 10_000, "broker close").catch((err: unknown) => this.logger.error("cluster: broker did not close", { err: (err as Error).message }));
    if (this.closed) return;
    // Our leader key may outlive us by up to a TTL: a fresh lease, so our old key simply expires.
    this.needLease = true;
    this.state = "starting";
    await this.front.reopen();
    this.streamFront?.setLeader(null);
    await this.streamFront?.listen();
  }
}
