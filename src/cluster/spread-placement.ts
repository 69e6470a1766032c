/**
 * Where each queue of a spread cluster lives (docs/CLUSTERING.md, "A spread cluster over etcd"):
 * its home node, as claimed in etcd (`spread/queues/<vhost>/<name>`), and the port this node
 * reaches each other node's queues by (a node link, or a DownPort while none is up).
 *
 * At a client's declare of an unknown queue the leader locator picks the home (RabbitMQ 3.10:
 * a classic queue's `x-queue-master-locator` — `min-masters` and `random` spread — or
 * `x-queue-leader-locator`, then the configured `queue_leader_locator`; `client-local` = this
 * node, `balanced` = the running member homing the fewest queues); the definitions log
 * (spread-definitions.ts) then claims it. A queue declared while a change is applied (the
 * broker's mirror is muted then) takes the home the claim recorded, else the applying change's
 * author, else this node (a queue a peer's link declared here, or one restored from this node's
 * own file).
 *
 * Every queue type is accepted: quorum queues and streams live in their home's store, which is
 * replicated since stage 2 (a stream's segments with it), and a stream homed elsewhere is reached
 * over the link as a RemoteStreamQueue (docs/CLUSTERING.md, "Streams in a spread cluster").
 */
import { BrokerError } from "../errors/broker-error.js";
import { chooseLeaderNode, effectivePolicy, leaderLocatorOf, ownerNodeElsewhere, replyNodeTag, type Broker, type LeaderLocator, type QueueLeaderPort, type QueuePlacement, type QueueSpec } from "../broker/index.js";
import { DownPort } from "../node-link/down-port.js";
import { dropExclusiveQueuesOf } from "../node-link/owned-elsewhere.js";

export const queueKey = (vhost: string, name: string): string => `${vhost}\u0000${name}`;

export class SpreadPlacement implements QueuePlacement {
  /** Home node of each queue, by queueKey. */
  private readonly homes = new Map<string, string>();
  /** Queues homed per node (the `balanced` locator's counts). */
  private readonly counts = new Map<string, number>();
  private readonly ports = new Map<string, QueueLeaderPort>();
  /** The author of the change being applied now (the log's batch, the snapshot's writer). */
  applyingAuthor: string | null = null;
  private memberNames: readonly string[] = [];
  /** Direct reply-to keys' node tags (replyNodeTag) of every member seen. */
  private readonly byTag = new Map<string, string>();
  /** Nodes whose link was lost and is not up again: their connections' exclusive queues went with it. */
  private readonly lost = new Set<string>();
  /** Homes this node chose at a client's declare, until the declare's record is logged (spread-claims.ts holds the queue then). */
  private readonly chosenHere = new Set<string>();

  constructor(
    private readonly broker: Broker,
    readonly me: string,
    private readonly configuredLocator: string,
  ) {}

  /** Every claimed home (queueKey → node): an adopted store's broker starts from them (spread-adoption.ts). */
  get homeMap(): ReadonlyMap<string, string> {
    return this.homes;
  }

  /** The members registered in etcd now (running nodes, for `balanced`). */
  get members(): readonly string[] {
    return this.memberNames;
  }
  set members(names: readonly string[]) {
    this.memberNames = names;
    for (const n of names) this.byTag.set(replyNodeTag(n), n);
  }

  homeOf(vhost: string, name: string): string | undefined {
    return this.homes.get(queueKey(vhost, name));
  }

  leaderOf(vhost: string, name: string, spec?: QueueSpec): QueueLeaderPort | null {
    const key = queueKey(vhost, name);
    let home = this.homes.get(key);
    if (home === undefined) {
      // The mirror is null while a change from elsewhere is applied (topology-apply.ts) and before
      // this node follows at all (its own file's restore): no client is declaring.
      const applying = this.broker.mirror === null;
      // Unclaimed, and no author to credit: restored from this node's file (deleted while it was
      // down, or declared here just before a crash) or declared by a peer's link, which sends a
      // queue only to its home. Held here, but not recorded: only a claim in etcd makes a home,
      // so a joining node's snapshot may remove it (spread-definitions.ts).
      if (applying && this.applyingAuthor === null) return null;
      home = applying ? this.applyingAuthor! : this.choose(vhost, name, spec);
      if (!applying) this.chosenHere.add(key);
      this.setHome(key, home);
    }
    return home === this.me ? null : this.portTo(home);
  }

  /** The claim etcd holds (a put under `queues/`). Returns the home it replaced, if another. */
  setHome(key: string, node: string): string | undefined {
    const before = this.homes.get(key);
    if (before === node) return undefined;
    if (before !== undefined) this.counts.set(before, (this.counts.get(before) ?? 1) - 1);
    this.homes.set(key, node);
    this.counts.set(node, (this.counts.get(node) ?? 0) + 1);
    return before;
  }

  /** Whether this node chose `key`'s home at a client's declare just now (asked once: the declare's record is being logged). */
  takeChosen(key: string): boolean {
    return this.chosenHere.delete(key);
  }

  /** The queue's claim was deleted (the queue was). */
  dropHome(key: string): void {
    const before = this.homes.get(key);
    if (before === undefined) return;
    this.homes.delete(key);
    this.counts.set(before, (this.counts.get(before) ?? 1) - 1);
  }

  /** How many queues `node` homes, and every node that homes one. */
  homedBy(node: string): number {
    return this.counts.get(node) ?? 0;
  }
  get homingNodes(): string[] {
    return [...this.counts].filter(([, n]) => n > 0).map(([node]) => node);
  }

  /**
   * QueuePlacement: the port to the node owning an exclusive queue (its connections' node). A
   * record of a node whose link was lost and is not back came from its dead process (its
   * exclusive queues were dropped with the link): refused, not held for ever over a down port.
   */
  portOf(node: string): QueueLeaderPort | null {
    if (node === this.me) return null;
    if (this.lost.has(node)) throw new BrokerError("notFound", `node '${node}' was lost; its connections' exclusive queues went with it`);
    return this.portTo(node);
  }

  /** The link to the member a direct reply-to key's tag names (down or unknown: undefined). */
  linkByTag(tag: string): QueueLeaderPort | undefined {
    const node = this.byTag.get(tag);
    return node === undefined ? undefined : this.ports.get(node);
  }

  private portTo(node: string): QueueLeaderPort {
    let port = this.ports.get(node);
    if (port === undefined) {
      port = new DownPort(node);
      this.ports.set(node, port);
    }
    return port;
  }

  /**
   * The link to `node` was lost: queues declared from now on are held over a DownPort (those held
   * over the link see it lost), and the exclusive queues its connections owned go here, as
   * RabbitMQ removes a lost node's exclusive queues. Returns how many went.
   */
  linkLost(node: string): number {
    this.ports.set(node, new DownPort(node));
    this.lost.add(node);
    return dropExclusiveQueuesOf(this.broker, node);
  }

  /** A link to `node` is up: every queue it homes, and every exclusive queue of its connections, is held over it. */
  reach(node: string, port: QueueLeaderPort): void {
    this.ports.set(node, port);
    this.lost.delete(node);
    for (const v of this.broker.vhosts.values()) {
      for (const q of [...v.queues.values()]) {
        if (!q.leadsElsewhere) continue;
        const owner = ownerNodeElsewhere(q);
        if (owner === null ? this.homes.get(queueKey(v.name, q.name)) !== node : owner !== node) continue;
        this.broker.leadQueueElsewhere(v.name, { name: q.name, durable: q.durable, autoDelete: q.autoDelete, exclusiveOwner: q.exclusiveOwner, arguments: q.arguments, group: null }, port);
      }
    }
  }

  private locatorOf(vhost: string, name: string, args: Readonly<Record<string, unknown>>): LeaderLocator {
    const v = this.broker.vhosts.get(vhost);
    const policy = v ? (effectivePolicy(v.policies.values(), "queue", name)?.definition ?? {}) : {};
    return masterOrLeader(policy["queue-leader-locator"], policy["queue-master-locator"]) ?? masterOrLeader(args["x-queue-leader-locator"], args["x-queue-master-locator"]) ?? leaderLocatorOf({}, {}, this.configuredLocator);
  }

  private choose(vhost: string, name: string, spec: QueueSpec | undefined): string {
    const nodes = this.members.map((node) => ({ name: node, running: node === this.me || this.portTo(node).up, leaders: this.counts.get(node) ?? 0 }));
    return chooseLeaderNode(this.locatorOf(vhost, name, spec?.arguments ?? {}), this.me, nodes);
  }
}

/**
 * A classic queue's locator as RabbitMQ 3.10 resolves it: its policy's key, then its argument,
 * then the setting; `queue-master-locator` / `x-queue-master-locator` (a classic queue's words:
 * `min-masters` and `random` spread) and the `-leader-` words of the other types are both read.
 */
function masterOrLeader(leader: unknown, master: unknown): LeaderLocator | undefined {
  if (leader !== undefined) return leaderLocatorOf({}, {}, String(leader));
  if (master === undefined) return undefined;
  return master === "client-local" ? "client-local" : "balanced";
}

