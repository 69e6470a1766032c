/**
 * One queue name declared on two nodes of a spread cluster within one etcd round trip
 * (docs/CLUSTERING.md, "One name declared on two nodes at once"): each node creates its copy at
 * once, and the first claim of `spread/queues/<vhost>/<name>` in etcd's order wins everywhere. So
 * that nothing is confirmed into a copy whose claim may still lose, a queue this node chose to home
 * at a client's declare holds what is routed to it (queue/claim-hold.ts: not enqueued, delivered
 * nor confirmed) from that declare — the same turn, before anything can route to it — until its
 * claim's transaction answers (spread-definitions.ts `commit` calls `decided`):
 *
 *   undecided --won--> serving as any queue (held messages enqueued in order, then confirmed)
 *   undecided --lost--> a RemoteQueue to the winner (held messages forwarded there in order,
 *                       confirmed once the winner stored them)
 *   undecided --deleted--> gone (held messages went with it)
 *
 * This object is the broker's mirror on a spread node: every change goes on to the outbox (the
 * definitions log) unchanged; a queue's record is where the hold starts.
 */
import { applyMirroredChange, claimWon, holdUntilClaimed, releaseToWinner, takeClaimHold, topologySnapshot, type Broker, type MirroredChange, type MirroredRecord, type MirrorOutbox, type TopologyMirror } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import { queueKey, type SpreadPlacement } from "./spread-placement.js";

export class SpreadClaims implements TopologyMirror {
  constructor(
    private readonly broker: Broker,
    private readonly placement: SpreadPlacement,
    private readonly outbox: MirrorOutbox,
    private readonly logger: Logger,
  ) {}

  put(kind: MirroredChange["kind"], record: MirroredRecord): void {
    this.outbox.put(kind, record);
    // An exclusive queue is never claimed (it lives and dies with its connection here).
    if (kind === "queues" && record["exclusive"] !== true) this.holdIfChosenHere(String(record["vhost"]), String(record["name"]));
  }

  delete(kind: MirroredChange["kind"], record: MirroredRecord): void {
    this.outbox.delete(kind, record);
  }

  settled(): Promise<void> {
    return this.outbox.settled();
  }

  /** The claim's transaction answered: `home` holds the queue (the first claim in etcd). */
  decided(vhost: string, name: string, home: string): void {
    if (home !== this.placement.me) {
      if (this.placement.setHome(queueKey(vhost, name), home) === this.placement.me) this.lost(vhost, name, home);
      return;
    }
    const q = this.broker.vhosts.get(vhost)?.queues.get(name);
    if (q !== undefined) claimWon(this.broker, q);
  }

  /**
   * Another node's claim on a queue this node took as its own won: this node's copy becomes a
   * RemoteQueue to the winner (its bindings re-applied), and what it held goes to the winner.
   */
  lost(vhost: string, name: string, winner: string): void {
    const v = this.broker.vhosts.get(vhost);
    const q = v?.queues.get(name);
    if (v === undefined || q === undefined || q.leadsElsewhere) return;
    const hold = takeClaimHold(q);
    this.logger.warn("spread cluster: a queue was declared on two nodes at once; the first claim in etcd homes it on the other node, this node holds it remotely", { vhost, queue: name, home: winner, moved: hold?.size ?? 0 });
    const mine = topologySnapshot(this.broker).filter((c) => (c.kind === "queues" && c.record["vhost"] === vhost && c.record["name"] === name) || (c.kind === "bindings" && c.record["vhost"] === vhost && c.record["destination_type"] === "queue" && c.record["destination"] === name));
    this.placement.applyingAuthor = winner;
    try {
      applyMirroredChange(this.broker, { kind: "queues", op: "delete", record: { vhost, name } });
      for (const c of mine) applyMirroredChange(this.broker, c);
    } finally {
      this.placement.applyingAuthor = null;
      if (hold !== null) releaseToWinner(hold, v.queues.get(name));
    }
  }

  /** The record of a queue a client declared here just now, homed here by this node's choice: it holds until its claim is decided. */
  private holdIfChosenHere(vhost: string, name: string): void {
    if (!this.placement.takeChosen(queueKey(vhost, name)) || this.placement.homeOf(vhost, name) !== this.placement.me) return;
    const q = this.broker.vhosts.get(vhost)?.queues.get(name);
    if (q !== undefined) holdUntilClaimed(this.broker, q);
  }
}
