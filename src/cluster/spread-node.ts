/**
 * One node of a spread cluster (`--cluster-mode spread`, a preview; docs/CLUSTERING.md, "A spread
 * cluster over etcd"): it runs its own broker on its own data dir and serves its own clients at
 * once; the queues it homes are its own, every other member's are held as RemoteQueues over node
 * links (TCP on `--cluster-port`, the cluster secret's handshake). etcd gives membership (each
 * node's `members/<node>` under its lease), the homes of queues, and one order for definitions
 * (spread-definitions.ts); one member, the `defs` leader, keeps the snapshot joining nodes start
 * from.
 *
 * A node killed -9 takes only its queues with it: the others see its links close (their
 * consumers of its queues are cancelled, publishes to them nacked) and connect again, every
 * 500 ms, once it is back in etcd; its queues then serve again from its own store. Since stage 2
 * (spread-stores.ts) its store is replicated to the others, adopted by an in-sync follower while it
 * is away, and taken back when it returns; a node whose lease is lost fences (closes its broker).
 */
import type { Server, Socket } from "node:net";
import { startBroker, type RunningBroker } from "../start-broker.js";
import type { ConeyConfig } from "../config/config.js";
import type { Logger } from "../logging/logger.js";
import { definitionsFollowed, ownVersion, topologySnapshot, type Broker } from "../broker/index.js";
import type { PeerNode } from "../http/peer-nodes.js";
import type { LeaderLink } from "../node-link/node-link.js";
import { RepliesOverLinks } from "../node-link/owned-elsewhere.js";
import { ClusterKeys, EtcdSession, withTimeout } from "./etcd-session.js";
import { clusterSecret } from "./replication-auth.js";
import { SpreadPlacement, queueKey } from "./spread-placement.js";
import { SpreadDefinitions, type DefsSnapshot } from "./spread-definitions.js";
import { SpreadKeys, watchSpread, type SpreadMember, type SpreadWatch } from "./spread-keys.js";
import { SpreadStores } from "./spread-stores.js";
import { SpreadPeers } from "./spread-peers.js";
import { SpreadStreamPorts, storeCopies, streamAddress } from "./spread-stream-ports.js";
import { replicationTransport, type ReplicationTransport } from "./replication-transport.js";
import { connectSpreadLink, listenForSpreadLinks } from "./spread-links.js";
import { processFigures, versionApplications } from "../http/node-record.js";

const TICK_MS = 500;
/** The `defs` leader writes a snapshot at most this often, and only after a change. */
const SNAPSHOT_EVERY_MS = 1000;

export class SpreadNode implements SpreadWatch {
  private readonly session: EtcdSession;
  private readonly keys: SpreadKeys;
  private readonly me: string;
  private secret: Buffer = Buffer.alloc(0);
  private running: RunningBroker | null = null;
  private placement: SpreadPlacement | null = null;
  private defs: SpreadDefinitions | null = null;
  private linkServer: Server | null = null;
  private linkPort = 0;
  private readonly members = new Map<string, SpreadMember>();
  /** Where each member's streams are served (its registered stream address), for Metadata; an adopted broker's have no own port. */
  private readonly streamPorts = new SpreadStreamPorts(this.members);
  /** This node's broker's: with its own stream port when it is a worker (workers/spread-workers.ts). */
  private readonly brokerStreamPorts: SpreadStreamPorts;
  /** Links this node holds to each other member (up), and those being opened. */
  private readonly links = new Map<string, LeaderLink>();
  private readonly connecting = new Set<string>();
  /** The last certificate refusal said for each member (spread-links.ts), so it is logged once, not every retry. */
  private readonly linkRefusals = new Map<string, string>();
  /** Claims and members read at start are as of this revision; older watched events of theirs are not news. */
  private readRevision = 0;
  private defsLeader: string | null = null;
  private snapshotAt = 0;
  private needLease = false;
  private stopWatch: (() => Promise<void>) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Stage 2: this node's store written with replication, the others' followed, dead nodes' adopted. */
  private stores: SpreadStores | null = null;
  private fencing = false;
  private booting: Promise<void> | null = null;
  private readonly acceptedLinks = new Set<Socket>();
  /** The other nodes' lists and figures over the links, and this node's answers to them. */
  private readonly peers: SpreadPeers;
  /** The links' and the stores' replication carrier: TLS with `--cluster-tls` (spread-links.ts). */
  private readonly transport: ReplicationTransport;

  constructor(
    private readonly config: ConeyConfig,
    private readonly logger: Logger,
    /** A worker of `coney --workers N`: its own stream port beside the shared one, registered for Metadata (docs/CLUSTERING.md, "Workers as spread-cluster nodes"). */
    private readonly ownStreamPort: number | null = null,
  ) {
    this.me = config.nodeName;
    this.brokerStreamPorts = new SpreadStreamPorts(this.members, ownStreamPort);
    this.keys = new SpreadKeys(config.clusterName);
    this.session = new EtcdSession(config.etcdEndpoints, config.etcdLeaseTtl, logger);
    this.transport = replicationTransport(config);
    this.session.onLost = () => {
      this.needLease = true;
      // A writer whose lease is gone may confirm nothing more: its owner key is gone with it (docs/CLUSTERING.md, "Stage 2").
      if (this.stores?.own) void this.fence("etcd lease lost");
    };
    this.peers = new SpreadPeers(this.me, () => this.links, {
      figures: () => {
        const r = this.running;
        return r === null ? null : { record: processFigures(r.broker, r.alarms), listeners: r.listeners().filter((l) => l.up).map((l) => ({ protocol: l.protocol, port: l.port, ip: config.bind || "::" })) };
      },
      applied: (revision) => this.defs?.applied(revision) ?? Promise.resolve(),
      followed: async () => {
        const broker = this.running?.broker;
        if (broker !== undefined) await definitionsFollowed(broker);
      },
    });
  }

  get amqpPort(): number {
    return this.running?.amqpPort ?? 0;
  }

  get httpPort(): number | null {
    return this.running?.httpPort ?? null;
  }

  async start(): Promise<void> {
    await this.session.atStart("lease grant", () => this.session.grant());
    this.secret = await this.session.atStart("cluster secret", () => clusterSecret(this.session, ClusterKeys.of(this.config.clusterName)));
    this.stores = new SpreadStores(this.config, this.transport, this.session, this.keys, this.secret, this.logger, (why) => void this.fence(why), this.streamPorts);
    this.booting = this.boot();
    await this.booting;
    this.schedule();
  }

  /** Reads the cluster, claims this node's store (spread-stores.ts), opens the broker on it, registers. Run again after a fence. */
  private async boot(): Promise<void> {
    // After a fence the watch was stopped: members are read again, not kept from before.
    this.members.clear();
    const read = await withTimeout(this.session.client.getAll().prefix(this.keys.prefix).exec(), this.session.callTimeout, "read the spread cluster");
    this.readRevision = Number(read.header.revision);
    const homes: Array<[string, string]> = [];
    let snapshot: DefsSnapshot | null = null;
    for (const kv of read.kvs) {
      const key = kv.key.toString();
      const value = kv.value.toString();
      const q = this.keys.parseQueue(key);
      if (q !== null) homes.push([queueKey(q.vhost, q.name), value]);
      else if (this.keys.parseMember(key) !== null) this.memberPut(JSON.parse(value) as SpreadMember);
      else if (key === this.keys.snapshot) snapshot = JSON.parse(value) as DefsSnapshot;
      else if (key === this.keys.defsLeader) this.defsLeader = value;
      else this.stores!.take(key, value, Number(kv.mod_revision));
    }
    // Before the data dir is opened: written elsewhere (adopted), this node follows it back first.
    const writer = await this.stores!.claimOwn();
    this.running = await startBroker({
      ...this.config,
      logger: this.logger,
      replica: writer.replication,
      peers: { list: async () => this.peerNodes(), records: this.peers, storeCopies: (home) => storeCopies(home, this.stores!.view, (n) => this.isRunning(n)) },
      clientIdPeers: this.peers,
      streamWorkers: this.brokerStreamPorts,
      nodeHooks: {
        // Before the restore: queues of this node's file homed elsewhere come back as RemoteQueues.
        beforeRestore: async (broker) => {
          const placement = new SpreadPlacement(broker, this.me, this.config.queueLeaderLocator);
          for (const [key, node] of homes) placement.setHome(key, node);
          placement.members = this.placeable();
          broker.placeQueuesWith(placement);
          // Direct reply-to keys name this node; a reply to another node's key crosses its link (frame 40).
          broker.directReply.reachOthers(this.me, new RepliesOverLinks((tag) => placement.linkByTag(tag)));
          this.placement = placement;
        },
        afterRestore: async (broker) => {
          this.defs = new SpreadDefinitions(broker, this.session, this.keys, this.placement!, this.logger);
          this.defs.othersApplied = (revision, ms) => this.peers.allApplied(revision, ms);
          this.defs.follow(snapshot);
          await this.serveLinks(broker);
        },
        close: async () => {
          await this.defs?.close();
          for (const link of this.links.values()) link.close();
          for (const s of this.acceptedLinks) s.destroy();
          await new Promise<void>((resolve) => (this.linkServer ? this.linkServer.close(() => resolve()) : resolve()));
        },
      },
    });
    this.stopWatch = await watchSpread(this.session, this.keys, (snapshot?.revision ?? this.readRevision) + 1, this, this.logger);
    // A start that took longer than the lease (a loaded machine, a large recovery) lost it: a new one, then register.
    // The store's writer was claimed under the old lease: it confirms nothing under the new one and the node fences (spread-store-writer.ts).
    await this.register().catch(async () => {
      await this.session.grant();
      this.needLease = false;
      await this.register();
    });
    this.logger.info("spread cluster: node serving", { node: this.me, linkPort: this.linkPort, clusterTls: this.transport.tls, members: [...this.members.keys()], snapshotRevision: snapshot?.revision ?? null });
  }

  /**
   * The lease is gone (cut from etcd): this node stops writing its store — its broker closes, its
   * clients are disconnected — within the lease, then boots again through the claim (docs/CLUSTERING.md, "Stage 2").
   */
  private async fence(why: string): Promise<void> {
    if (this.fencing || this.closed) return;
    this.fencing = true;
    this.logger.warn("spread cluster: fencing this node: it stops serving its queues", { why });
    // A boot under way (its broker about to bind the ports) ends first: then what it opened is closed.
    await this.booting?.catch(() => undefined);
    await this.stores?.closeWriters(why);
    await this.running?.close().catch(() => undefined);
    this.running = null;
    this.placement = null;
    await this.stopWatch?.().catch(() => undefined);
    this.stopWatch = null;
    while (!this.closed) {
      try {
        await this.session.grant();
        this.needLease = false;
        this.booting = this.boot();
        await this.booting;
        break;
      } catch (err) {
        this.logger.warn("spread cluster: could not boot again after a fence; retrying", { err: (err as Error).message });
        await new Promise((r) => setTimeout(r, TICK_MS));
      }
    }
    this.fencing = false;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.stores?.closeWriters("node stopping");
    await this.running?.close();
    await this.stores?.close();
    await this.stopWatch?.().catch(() => undefined);
    await this.session.close();
  }

  event(key: string, value: string | null, revision: number): void {
    if (this.keys.parseStore(key) !== null || this.keys.isKnown(key)) {
      if (revision > this.readRevision) this.stores?.take(key, value, revision);
      return;
    }
    const member = this.keys.parseMember(key);
    if (member !== null) {
      if (revision <= this.readRevision) return;
      if (value === null) {
        // Its lease is gone: that process serves the name no more. Dropped now, not when TCP says so: cut off by a
        // real partition, it never answers and nothing is refused, and a link kept open to it would hide the adopter
        // that registers the name next (docs/CLUSTERING.md, "On machines of their own").
        this.members.delete(member);
        this.links.get(member)?.close();
      } else {
        const m = JSON.parse(value) as SpreadMember;
        const before = this.members.get(member);
        // Another process serves that name now (an adopter, or a restart): a link to the old one is to a process that no longer serves it.
        if (before && (before.pid !== m.pid || before.linkPort !== m.linkPort || before.host !== m.host)) this.links.get(member)?.close();
        this.memberPut(m);
      }
      if (this.placement) this.placement.members = this.placeable();
      return;
    }
    if (key === this.keys.defsLeader) {
      this.defsLeader = value;
      return;
    }
    // Claims read at start are the state as of readRevision: replaying older ones would go back in time.
    if (revision <= this.readRevision && this.keys.parseQueue(key) !== null) return;
    this.defs?.event(key, value, revision);
    this.stores?.definitionsEvent(key, value);
  }

  /**
   * /api/nodes: every member, and every node that homes a queue (a node that is down still shows,
   * `running: false`, as RabbitMQ lists a stopped disc node). Running means registered in etcd and
   * reached over a link (or this node). Another running node's process figures and bound listeners
   * are asked over its link (spread-peers.ts); one that does not answer in time shows its
   * registered `os_pid` and ports.
   */
  private async peerNodes(): Promise<PeerNode[]> {
    const figures = await this.peers.figures();
    const names = new Set([this.me, ...this.members.keys(), ...(this.placement?.homingNodes ?? [])]);
    return [...names].sort().map((name) => {
      const m = this.members.get(name);
      const running = this.isRunning(name);
      const asked = figures.get(name);
      const record = { ...(m?.version && !asked ? { applications: versionApplications(m.version) } : {}), ...asked?.record, cluster_mode: "spread", queues_homed: this.placement?.homedBy(name) ?? 0, defs_leader: this.defsLeader === name, ...(m && running && !asked ? { os_pid: String(m.pid) } : {}), ...(m?.adoptedBy === undefined ? {} : { adopted_by: m.adoptedBy }) };
      // Not answered in time: its registered ports, at the address it advertises.
      const registered = !m ? [] : [{ protocol: "amqp", port: m.amqpPort, ip: m.host }, ...(m.httpPort === null ? [] : [{ protocol: "http", port: m.httpPort, ip: m.host }])];
      const listeners = name === this.me || !running ? [] : (asked?.listeners ?? registered);
      return { name, running, record, listeners };
    });
  }

  /** Registered and linked (or this node); a node whose store another node adopted is down, its queues served by `adopted_by` (docs/CLUSTERING.md, "Stage 2"). */
  private isRunning(name: string): boolean {
    const m = this.members.get(name);
    return name === this.me || (m !== undefined && m.adoptedBy === undefined && this.links.has(name));
  }

  /** Members new queues may be placed on: not a dead node whose store is adopted (its queues move back with it). */
  private placeable(): string[] {
    return [...this.members.values()].filter((m) => m.adoptedBy === undefined).map((m) => m.name);
  }

  private memberPut(m: SpreadMember): void {
    this.members.set(m.name, m);
  }

  private async serveLinks(broker: Broker): Promise<void> {
    const server = listenForSpreadLinks(this.transport, broker, { secret: this.secret, node: this.me, answerQuery: (q, peer) => this.peers.answerQuery(q, peer) }, (err) => this.logger.warn("spread cluster: a node link was refused", { err: err.message }));
    // A fenced node's links must end with its broker: the other nodes then see its queues lost and reach their adopter.
    const accepted = this.acceptedLinks;
    server.on("connection", (s: Socket) => {
      accepted.add(s);
      s.once("close", () => accepted.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      // Exclusive: a worker of `coney --workers N` binds its own link port, never one node:cluster's primary shares.
      server.listen({ port: this.config.clusterPort, host: this.config.bind === "" ? undefined : this.config.bind, exclusive: true }, () => resolve());
    });
    const a = server.address();
    this.linkPort = typeof a === "object" && a ? a.port : this.config.clusterPort;
    this.linkServer = server;
  }

  private async register(): Promise<void> {
    // A worker's streams are served on its own port (the shared one lands on any worker).
    const stream = this.ownStreamPort === null ? streamAddress(this.config, this.running?.streamPort ?? null, true) : streamAddress(this.config, this.running?.streamPort == null ? null : this.ownStreamPort, false);
    const info: SpreadMember = { name: this.me, pid: process.pid, host: this.config.advertiseAddress, linkPort: this.linkPort, amqpPort: this.amqpPort, httpPort: this.httpPort, stream, version: ownVersion() };
    await withTimeout(this.session.client.put(this.keys.member(this.me)).value(JSON.stringify(info)).lease(this.session.leaseId).exec(), this.session.callTimeout, "register");
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.tick().catch((err: unknown) => this.logger.debug("spread cluster: step failed; retrying", { err: (err as Error).message })).finally(() => this.schedule());
    }, TICK_MS);
  }

  private async tick(): Promise<void> {
    if (this.fencing) return;
    this.stores?.tick(this.members, () => ({ homes: this.placement?.homeMap ?? new Map(), topology: this.running ? topologySnapshot(this.running.broker) : [], adopter: this.me }));
    for (const m of this.members.values()) if (m.name !== this.me && !this.links.has(m.name) && !this.connecting.has(m.name)) this.reach(m);
    if (this.needLease) {
      await this.session.grant();
      this.needLease = false;
      await this.register();
    }
    const c = this.session.client;
    if (this.defsLeader === null) {
      await withTimeout(c.if(this.keys.defsLeader, "Create", "==", 0).then(c.put(this.keys.defsLeader).value(this.me).lease(this.session.leaseId)).commit(), this.session.callTimeout, "defs election");
    } else if (this.defsLeader === this.me && this.defs?.dirty && performance.now() - this.snapshotAt >= SNAPSHOT_EVERY_MS) {
      this.snapshotAt = performance.now();
      const snapshot = await this.defs.snapshot();
      await withTimeout(c.if(this.keys.defsLeader, "Value", "==", this.me).then(c.put(this.keys.snapshot).value(JSON.stringify(snapshot))).commit(), this.session.callTimeout, "defs snapshot");
    }
  }

  /** Opens a link to member `m`; once up, every queue it homes is held over it. */
  private reach(m: SpreadMember): void {
    this.connecting.add(m.name);
    connectSpreadLink(this.transport, m.host, m.linkPort, { secret: this.secret, node: this.me }).then(
      (link) => this.up(m.name, link),
      (err: Error) => {
        // Retried every tick: a refused connection (a node starting) is routine, a certificate the CA did not
        // sign (`--cluster-tls` misconfigured) is not, and is said once per member and cause, not every 500 ms.
        const tlsRefusal = (err as Error & { code?: string }).code?.startsWith("ERR_TLS") === true || /certificate/i.test(err.message);
        if (tlsRefusal && this.linkRefusals.get(m.name) !== err.message) this.logger.warn("spread cluster: a node's link certificate was refused", { node: m.name, err: err.message });
        else if (!tlsRefusal) this.logger.debug("spread cluster: node link handshake failed", { node: m.name, err: err.message });
        if (tlsRefusal) this.linkRefusals.set(m.name, err.message);
        this.connecting.delete(m.name);
      },
    );
  }

  private up(node: string, link: LeaderLink): void {
    this.connecting.delete(node);
    this.linkRefusals.delete(node);
    if (this.closed || this.placement === null) return link.close();
    this.links.set(node, link);
    this.logger.info("spread cluster: link to a node up", { node });
    link.onLost(() => {
      // Only the current link's loss matters: an older one's (a node that restarted fast) must not hide the new one.
      if (this.links.get(node) !== link) return;
      this.links.delete(node);
      // Its connections' exclusive queues go here; the `defs` leader's next snapshot must not bring them back.
      if ((this.placement?.linkLost(node) ?? 0) > 0 && this.defs) this.defs.dirty = true;
      if (!this.closed) this.logger.warn("spread cluster: link to a node lost", { node });
    });
    this.placement.reach(node, link);
  }
}
