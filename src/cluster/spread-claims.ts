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
 * definitions log) unchanged; a queue's record is where the hold starts. A client's change is
 * also judged (spread-order.ts): `verdict` answers after the barrier, refusing a change that lost
 * to an earlier one of another node. Of two declares of one queue, the claim's winner's record
 * stands on every node; the loser's client is refused (406 inequivalent arg) when they differ.
 */
import { applyMirroredChange, claimWon, declareRefusal, holdUntilClaimed, releaseToWinner, takeClaimHold, topologySnapshot, type Broker, type MirroredChange, type LateRefusal, type MirroredRecord, type MirrorOutbox, type TopologyMirror } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import type { OwnChanges } from "./spread-order.js";
import { queueKey, type SpreadPlacement } from "./spread-placement.js";

export class SpreadClaims implements TopologyMirror {
  /** This node's record of each queue it declared and homes by its choice, while the claim is undecided. */
  private readonly declaredHere = new Map<string, MirroredRecord>();
  /** Another node's record of such a queue, logged meanwhile: the one that stands if that node's claim wins. */
  private readonly declaredThere = new Map<string, MirroredRecord>();

  constructor(
    private readonly broker: Broker,
    private readonly placement: SpreadPlacement,
    private readonly outbox: MirrorOutbox,
    private readonly own: OwnChanges,
    private readonly logger: Logger,
  ) {}

  put(kind: MirroredChange["kind"], record: MirroredRecord): void {
    this.outbox.put(kind, record);
    this.own.told(record);
    // An exclusive queue is never claimed (it lives and dies with its connection here).
    if (kind === "queues" && record["exclusive"] !== true) this.holdIfChosenHere(String(record["vhost"]), String(record["name"]), record);
  }

  delete(kind: MirroredChange["kind"], record: MirroredRecord): void {
    this.outbox.delete(kind, record);
    if (kind !== "queues") return;
    // Deleted while undecided: nothing is left to judge (another node's record kept meanwhile too).
    const key = queueKey(String(record["vhost"]), String(record["name"]));
    this.declaredHere.delete(key);
    this.declaredThere.delete(key);
  }

  settled(): Promise<void> {
    this.own.take();
    return this.outbox.settled();
  }

  /**
   * As settled; rejects with the refusal of a change told since the last call that lost to an
   * earlier one (spread-order.ts). Answered ok while still pending (etcd did not answer within the
   * barrier's bound), a change that loses later is told to `late`.
   */
  verdict(late?: LateRefusal): Promise<void> {
    const mine = this.own.take();
    return this.outbox.settled().then(() => {
      const refusal = this.own.refusalOf(mine);
      if (refusal !== null) throw refusal;
      if (late !== undefined) this.own.answered(mine, late);
    });
  }

  /**
   * Another node logged a declare of a queue this node declared too, before this node's in etcd's
   * order. Its claim decides: when it already won (this node's copy is a RemoteQueue to it), its
   * record stands here now; while undecided, it is kept for `lost`.
   */
  remotePut(record: MirroredRecord, author: string): void {
    const vhost = String(record["vhost"]);
    const name = String(record["name"]);
    const key = queueKey(vhost, name);
    // Not a declare of this node's still being judged (e.g. an MQTT session's new expiry): this node's later put stands.
    if (!this.declaredHere.has(key)) return;
    const q = this.broker.vhosts.get(vhost)?.queues.get(name);
    if (q === undefined || this.placement.homeOf(vhost, name) !== author || !q.leadsElsewhere) {
      this.declaredThere.set(key, record);
      return;
    }
    if (declareRefusal(this.broker.vhosts, "queues", record) !== null) this.rehome(vhost, name, author, record);
    this.judge(key);
  }

  /** The claim's transaction answered: `home` holds the queue (the first claim in etcd). */
  decided(vhost: string, name: string, home: string): void {
    if (home !== this.placement.me) {
      if (this.placement.setHome(queueKey(vhost, name), home) === this.placement.me) this.lost(vhost, name, home);
      return;
    }
    this.declaredHere.delete(queueKey(vhost, name));
    this.declaredThere.delete(queueKey(vhost, name));
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
    if (v === undefined || q === undefined) {
      // Gone here meanwhile (another node's delete, its vhost's): nothing is left to judge.
      this.declaredHere.delete(queueKey(vhost, name));
      this.declaredThere.delete(queueKey(vhost, name));
      return;
    }
    if (q.leadsElsewhere) return;
    const hold = takeClaimHold(q);
    this.logger.warn("spread cluster: a queue was declared on two nodes at once; the first claim in etcd homes it on the other node, this node holds it remotely", { vhost, queue: name, home: winner, moved: hold?.size ?? 0 });
    const key = queueKey(vhost, name);
    const theirs = this.declaredThere.get(key);
    try {
      this.rehome(vhost, name, winner, theirs ?? null);
    } finally {
      if (hold !== null) releaseToWinner(hold, v.queues.get(name));
    }
    // The winner's record not logged yet (its claim and its batch are one transaction, the claim first): judged at remotePut.
    if (theirs !== undefined) this.judge(key);
  }

  /** This node's declare of a queue whose claim another node won: refused when the winner's queue differs. */
  private judge(key: string): void {
    const mine = this.declaredHere.get(key);
    this.declaredHere.delete(key);
    this.declaredThere.delete(key);
    const refusal = mine === undefined ? null : declareRefusal(this.broker.vhosts, "queues", mine);
    if (mine !== undefined && refusal !== null) this.own.refuse(mine, refusal);
  }

  /**
   * This node's copy of a queue becomes a RemoteQueue to `home`, its bindings kept: declared with
   * `record` (the winner's) when known, else with this node's own record.
   */
  private rehome(vhost: string, name: string, home: string, record: MirroredRecord | null): void {
    const held = topologySnapshot(this.broker).filter((c) => (c.kind === "queues" && c.record["vhost"] === vhost && c.record["name"] === name) || (c.kind === "bindings" && c.record["vhost"] === vhost && c.record["destination_type"] === "queue" && c.record["destination"] === name));
    const changes = record === null ? held : [{ kind: "queues" as const, op: "put" as const, record }, ...held.filter((c) => c.kind === "bindings")];
    this.placement.applyingAuthor = home;
    try {
      applyMirroredChange(this.broker, { kind: "queues", op: "delete", record: { vhost, name } });
      for (const c of changes) applyMirroredChange(this.broker, c);
    } finally {
      this.placement.applyingAuthor = null;
    }
  }

  /** The record of a queue a client declared here just now, homed here by this node's choice: it holds until its claim is decided. */
  private holdIfChosenHere(vhost: string, name: string, record: MirroredRecord): void {
    if (!this.placement.takeChosen(queueKey(vhost, name)) || this.placement.homeOf(vhost, name) !== this.placement.me) return;
    this.declaredHere.set(queueKey(vhost, name), record);
    const q = this.broker.vhosts.get(vhost)?.queues.get(name);
    if (q !== undefined) holdUntilClaimed(this.broker, q);
  }
}
