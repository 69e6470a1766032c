/**
 * What the broker does for its queues (the QueueHost port of queue/queue.ts): delete a queue
 * that lost its last consumer (auto-delete) or expired (x-expires), republish a message that
 * died in a queue to its dead-letter exchange, and keep publishes whose store write failed out
 * of every queue. The store reaches the broker only through this object (lostRecords). It also
 * keeps the node's queue groups (queue-groups.ts): which group a new queue joins.
 */
import { deadLetteredMessage, isDeadLetterCycle, type DeathReason } from "../dead-letter.js";
import type { Message } from "../message.js";
import type { Queue, QueueHost, RemoteLeader } from "../queue/queue-type.js";
import type { ForwardedPublishes } from "../queue/forwarded-publishes.js";
import type { QueuePlacement } from "../queue/queue-placement.js";
import { OwnerElsewhere } from "../queue/owner-elsewhere.js";
import type { QueueJournal } from "../queue/queue-journal.js";
import type { QueueSpec } from "../queue/queue-spec.js";
import { QueueGroups } from "../queue/queue-groups.js";
import type { QueueConsumer } from "../queue/queue-consumer.js";
import { announceConsumer } from "../events/runtime-events.js";
import type { BrokerState } from "./broker-state.js";
import { removeQueue } from "./topology-removal.js";

export class BrokerQueueHost implements QueueHost {
  readonly now: () => number;
  readonly journal?: QueueJournal;
  unstored: WeakSet<Message> | null = null;
  /** As many groups as the journal keeps apart; without a journal, `groups` (nothing is stored either way). */
  readonly groups: QueueGroups;

  constructor(private readonly b: BrokerState, journal: QueueJournal | null, groups = 1) {
    this.now = b.now;
    this.groups = new QueueGroups(journal ? journal.groups : groups);
    if (journal) {
      this.journal = journal;
      journal.lostRecords = (isLost, lost, group) => this.dropUnstored(isLost, lost, group);
    }
  }

  /** Set when this node is one of several that each lead some queues (Broker.placeQueuesWith). */
  placement: { readonly of: QueuePlacement; readonly forwards: ForwardedPublishes } | null = null;

  leaderElsewhere(vhost: string, spec: QueueSpec): RemoteLeader | null {
    const p = this.placement;
    if (p === null) return null;
    const owner = spec.exclusiveOwner;
    // An exclusive queue stays on its connection's node, whatever its name's hash says (RabbitMQ
    // places exclusive queues locally); one of another node's connections is held for that node.
    const port = owner === null ? p.of.leaderOf(vhost, spec.name, spec) : owner instanceof OwnerElsewhere ? p.of.portOf(owner.node) : null;
    return port === null ? null : { port, forwards: p.forwards };
  }

  placeQueue(vhost: string, spec: QueueSpec): number | null {
    const of = this.placement?.of;
    return this.groups.place(vhost, spec.name, spec.exclusiveOwner !== null, of?.groupOf === undefined ? spec.group : of.groupOf(vhost, spec.name));
  }

  queueRemoved(q: Queue): void {
    this.groups.removed(q.group);
  }

  queueUnused(q: Queue): void {
    removeQueue(this.b, this.b.vhosts.get(q.vhost)!, q);
  }

  queueExpired(q: Queue): void {
    removeQueue(this.b, this.b.vhosts.get(q.vhost)!, q);
  }

  consumerChanged(q: Queue, c: QueueConsumer<Queue>, added: boolean): void {
    if (this.b.events.detailWanted) announceConsumer(this.b, q, c, added);
  }

  /**
   * Republishes a message that died in `q` to its dead-letter exchange (rabbit_dead_letter):
   * dropped when that exchange does not exist, and not delivered to a queue where it would
   * cycle without a rejection (isDeadLetterCycle). Every death is counted, dead-lettered or not.
   */
  deadLetter(q: Queue, message: Message, reason: DeathReason): void {
    // A stream's messages never die (no TTL, no length limit by count, no reject): nothing to count.
    if (q.type === "stream") return;
    const exchange = q.settings.deadLetterExchange;
    this.b.stats.deadLettered.add(q.type, exchange !== null, reason);
    if (exchange === null) return;
    const v = this.b.vhosts.get(q.vhost);
    const x = v?.exchanges.get(exchange);
    if (!v || !x) return;
    const dead = deadLetteredMessage(message, q.name, reason, this.b.now(), { exchange: x.name, routingKey: q.settings.deadLetterRoutingKey });
    // Its own array: dead-lettering can nest (a target queue may overflow and dead-letter too).
    const targets: Queue[] = [];
    v.route(x, dead.routingKey, dead.properties, targets);
    for (const t of targets) if (!isDeadLetterCycle(dead, t.name, reason)) t.enqueue(dead);
  }

  /**
   * The message store could not write some records (a full disk with the disk alarm off or
   * outrun): their publishers are nacked, and a broker nack means the message was taken nowhere
   * (as with overflow reject-publish). So every ready entry of those messages goes, in the
   * durable queue whose record was lost and in every other queue the same publish reached;
   * entries already handed to a consumer are dropped rather than requeued (QueueHost.unstored).
   * Failure path only: it scans every queue.
   */
  private dropUnstored(isLost: (ref: number) => boolean, lost: Set<Message>, group: number): void {
    // Refs are the failing group's store's own: only its queues' entries can hold them.
    for (const v of this.b.vhosts.values()) for (const q of v.queues.values()) if (q.group === group) q.collectUnstored(isLost, lost);
    if (lost.size === 0) return;
    for (const v of this.b.vhosts.values()) for (const q of v.queues.values()) q.dropMessages(lost);
    const unstored = (this.unstored ??= new WeakSet());
    for (const m of lost) unstored.add(m);
  }
}
