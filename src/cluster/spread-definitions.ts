/**
 * Definitions of a spread cluster, in one order for every node: etcd's revisions
 * (docs/CLUSTERING.md, "A spread cluster over etcd"). This node's changes (its broker's mirror,
 * one batch per event-loop turn) are put to `spread/log/<node>` in a transaction that also claims
 * the home of every queue the batch declares (`spread/queues/<vhost>/<name>`, created only if
 * absent: the first claim in revision order wins on every node) and drops the claim of every queue
 * it deletes. Every node watches the prefix and applies the other nodes' batches in revision
 * order through the applier (idempotent, muted).
 *
 * A joining node takes `spread/defs-snapshot` — the whole topology the `defs` leader had applied
 * up to a revision — makes its topology the same, then applies the log after that revision. The
 * snapshot never removes a queue this node homes: such a queue goes only by a delete in the log
 * (its messages are here and nowhere else).
 *
 * Every node, the one that made a change too, ends in the state of etcd's order: this node's
 * changes wait for their place as pending ones (spread-order.ts), another node's batch is applied
 * before them, and a change of this node that lost to an earlier one is refused to its client
 * (TopologyMirror.verdict, after the barrier).
 *
 * Invariant: batches of one node reach etcd in the order it made them (one write at a time, a
 * failed write retried before the next).
 */
import { randomUUID } from "node:crypto";
import type { IOperation } from "etcd3";
import { applyMirroredChange, followSnapshot, heldIdentities, identityOf, MirrorOutbox, queueDefinition, topologySnapshot, type Broker, type MirroredChange, type MirroredRecord } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import { withTimeout, type EtcdSession } from "./etcd-session.js";
import { SpreadClaims } from "./spread-claims.js";
import { OwnChanges } from "./spread-order.js";
import { queueKey, type SpreadPlacement } from "./spread-placement.js";
import type { SpreadKeys, SpreadWatch } from "./spread-keys.js";

const RETRY_MS = 500;
/**
 * The barrier's bounds (a client's declare-ok waits for it): this node's own batch reaching etcd,
 * then the other linked nodes applying it. A node cut from etcd, or a peer that does not answer,
 * delays its clients' answers by at most this much instead of blocking them.
 */
const OWN_WRITE_WAIT_MS = 2000;
const OTHERS_APPLY_WAIT_MS = 3000;
/** How long a peer's "applied" question is held here before it is answered anyway. */
const APPLIED_HOLD_MS = 10_000;

interface LoggedBatch {
  readonly from: string;
  readonly batch: readonly MirroredChange[];
  /** The writing process's life and the batch's number in it: the node knows its own batch when the watch brings it back. */
  readonly life?: string;
  readonly seq?: number;
}

export interface DefsSnapshot {
  readonly from: string;
  readonly revision: number;
  readonly changes: readonly MirroredChange[];
}

export class SpreadDefinitions implements SpreadWatch {
  private readonly outbox: MirrorOutbox;
  /** The broker's mirror: the outbox, holding a new queue's messages until its claim is decided (spread-claims.ts). */
  private readonly claims: SpreadClaims;
  /** This node's changes waiting for their place in etcd's order (spread-order.ts). */
  private readonly own: OwnChanges;
  /** This process's life: batches of an earlier life of this node, replayed by the watch, are not pending ones. */
  private readonly life = randomUUID();
  private sending: Promise<void> = Promise.resolve();
  /** The last revision whose events were applied here. */
  lastApplied = 0;
  /** Something changed since the last snapshot this node wrote. */
  dirty = false;
  private closed = false;
  /** The etcd revision of this node's last logged batch (0: none yet). */
  private written = 0;
  /** Peers' barrier questions waiting for this node to apply the log up to a revision. */
  private readonly appliedWaits = new Set<{ readonly revision: number; done(): void }>();
  /** Asks every linked node to answer once it applied the log up to a revision (spread-peers.ts); null: no barrier. */
  othersApplied: ((revision: number, timeoutMs: number) => Promise<void>) | null = null;

  constructor(
    private readonly broker: Broker,
    private readonly session: EtcdSession,
    private readonly keys: SpreadKeys,
    private readonly placement: SpreadPlacement,
    private readonly logger: Logger,
  ) {
    this.outbox = new MirrorOutbox(
      (batch) => {
        this.dirty = true;
        const seq = this.own.sent(batch);
        this.sending = this.sending.then(() => this.write(batch, seq));
      },
      () => this.barrier(),
    );
    this.own = new OwnChanges(logger);
    this.claims = new SpreadClaims(broker, placement, this.outbox, this.own, logger);
  }

  /**
   * Makes this node's topology the snapshot's (when there is one), then starts logging its own
   * changes. The caller watches from the snapshot's revision + 1 (or the revision it read).
   */
  follow(snapshot: DefsSnapshot | null): void {
    // A queue etcd homes here is never removed by a snapshot (its declare may be later in the log
    // than the snapshot). One held here with no claim is removed if the snapshot lacks it (it was
    // deleted while this node was down) unless it holds messages: then it is this node's own,
    // declared just before a crash that came before its claim reached etcd (a RemoteQueue holds
    // no message), so it is kept and claimed now.
    const stale = heldIdentities(this.broker);
    const unclaimed: MirroredChange[] = [];
    for (const v of this.broker.vhosts.values()) {
      for (const q of v.queues.values()) {
        const home = this.placement.homeOf(v.name, q.name);
        const ownUnclaimed = home === undefined && !q.leadsElsewhere && q.exclusiveOwner === null && q.messageCount > 0;
        if (home === this.placement.me || ownUnclaimed) stale.delete(identityOf("queues", { vhost: v.name, name: q.name }));
        if (ownUnclaimed) unclaimed.push({ kind: "queues", op: "put", record: queueDefinition(q) as unknown as MirroredRecord });
      }
    }
    if (snapshot !== null) {
      this.placement.applyingAuthor = snapshot.from;
      try {
        followSnapshot(this.broker, withLiveOwners(snapshot.changes, this.placement.members), stale);
      } catch (err) {
        this.logger.warn("spread cluster: the definitions snapshot did not apply whole", { err });
      } finally {
        this.placement.applyingAuthor = null;
      }
      this.lastApplied = snapshot.revision;
    }
    if (unclaimed.length > 0) this.logger.warn("spread cluster: claiming queues this node holds with messages but no home in etcd (declared just before a crash)", { queues: unclaimed.map((c) => `${String(c.record["vhost"])}/${String(c.record["name"])}`) });
    for (const c of unclaimed) this.outbox.put(c.kind, c.record);
    this.broker.mirror = this.claims;
  }

  /** One event of the watched prefix, in revision order. */
  event(key: string, value: string | null, revision: number): void {
    const home = this.keys.parseQueue(key);
    if (home !== null) {
      const k = queueKey(home.vhost, home.name);
      if (value === null) this.placement.dropHome(k);
      else {
        const before = this.placement.setHome(k, value);
        if (before === this.placement.me) this.claims.lost(home.vhost, home.name, value);
      }
    } else if (this.keys.isLog(key) && value !== null) {
      const logged = JSON.parse(value) as LoggedBatch;
      if (logged.from !== this.placement.me) this.apply(logged);
      else if (logged.life === this.life && logged.seq !== undefined) this.own.seen(logged.seq);
    }
    this.lastApplied = revision;
    for (const w of this.appliedWaits) if (w.revision <= revision) w.done();
  }

  /** Resolves once this node applied the log up to `revision` (a peer's barrier), or after APPLIED_HOLD_MS. */
  applied(revision: number): Promise<void> {
    if (revision <= this.lastApplied || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const wait = {
        revision,
        done: () => {
          clearTimeout(timer);
          this.appliedWaits.delete(wait);
          resolve();
        },
      };
      const timer = setTimeout(() => wait.done(), APPLIED_HOLD_MS);
      this.appliedWaits.add(wait);
    });
  }

  /**
   * The mirror's barrier (TopologyMirror.settled): resolves once this node's changes so far are in
   * etcd and every linked node applied them, so a client's next step on any node finds what it
   * declared (the workers' rule, docs/CLUSTERING.md "Answered once everyone knows"). Bounded.
   */
  private async barrier(): Promise<void> {
    const inEtcd = await withTimeout(this.sending, OWN_WRITE_WAIT_MS, "this node's definitions in etcd").then(() => true, () => false);
    if (!inEtcd || this.written === 0) return;
    // This node too applies what etcd ordered before its batch (revisions below its own; the usual case: already
    // applied, no wait): only then is its change's verdict known (spread-order.ts).
    const here = withTimeout(this.applied(this.written - 1), OTHERS_APPLY_WAIT_MS, "what etcd ordered before this node's batch").catch(() => undefined);
    await Promise.all([here, this.othersApplied?.(this.written, OTHERS_APPLY_WAIT_MS)]);
  }

  /** The topology as applied up to `lastApplied`, once this node's own pending changes are in etcd. */
  async snapshot(): Promise<DefsSnapshot> {
    this.outbox.flush();
    await this.sending;
    this.dirty = false;
    return { from: this.placement.me, revision: this.lastApplied, changes: topologySnapshot(this.broker) };
  }

  /** Sends what is gathered and waits until it is in etcd (or this node closes). */
  async close(): Promise<void> {
    this.outbox.flush();
    await withTimeout(this.sending, 5000, "last definitions batch").catch(() => undefined);
    this.closed = true;
    for (const w of this.appliedWaits) w.done();
  }

  private apply(logged: LoggedBatch): void {
    this.dirty = true;
    // A change of this node made in this poll phase but not yet sent (the outbox sends at the end
    // of the turn) goes to etcd after this batch: it is pending now, or it would be taken for idle
    // and a declare of the same queue would never be judged (test/cluster/spread-unsent-declare).
    this.outbox.flush();
    const others = (change: MirroredChange): void => {
      this.placement.applyingAuthor = logged.from;
      try {
        applyMirroredChange(this.broker, change);
      } catch (err) {
        this.logger.warn("spread cluster: a definitions change from another node did not apply here", { err, from: logged.from, kind: change.kind, op: change.op });
      } finally {
        this.placement.applyingAuthor = null;
      }
    };
    // The usual case: no change of this node waits for its place.
    if (this.own.idle) {
      for (const change of logged.batch) others(change);
      return;
    }
    this.own.applyOthers(this.broker, logged.batch, {
      others,
      own: (change) => {
        this.placement.applyingAuthor = this.placement.me;
        try {
          applyMirroredChange(this.broker, change);
        } finally {
          this.placement.applyingAuthor = null;
        }
      },
      queuePut: (change) => this.claims.remotePut(change.record, logged.from),
    });
  }

  /** Puts one batch, with its queues' claims; retried until etcd takes it. */
  private async write(batch: readonly MirroredChange[], seq: number): Promise<void> {
    const claims = new Map<string, { vhost: string; name: string; home: string | null }>();
    for (const c of batch) {
      // An exclusive queue lives on its connection's node and dies with it: its record names that node (owner_node), no claim.
      if (c.kind !== "queues" || c.record["exclusive"] === true) continue;
      const vhost = String(c.record["vhost"]);
      const name = String(c.record["name"]);
      claims.set(queueKey(vhost, name), { vhost, name, home: c.op === "put" ? (this.placement.homeOf(vhost, name) ?? this.placement.me) : null });
    }
    const value = JSON.stringify({ from: this.placement.me, batch, life: this.life, seq } satisfies LoggedBatch);
    for (;;) {
      try {
        await this.commit(value, [...claims.values()]);
        return;
      } catch (err) {
        if (this.closed) return;
        this.logger.warn("spread cluster: could not log a definitions change in etcd; retrying", { err: (err as Error).message });
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
  }

  private async commit(value: string, claims: ReadonlyArray<{ vhost: string; name: string; home: string | null }>): Promise<void> {
    const c = this.session.client;
    const puts = claims.filter((x) => x.home !== null);
    const drops: IOperation[] = claims.filter((x) => x.home === null).map((x) => c.delete().key(this.keys.queue(x.vhost, x.name)));
    const log = c.put(this.keys.log(this.placement.me)).value(value);
    if (puts.length === 0) {
      // Always true: the drops and the log in one revision.
      const done = await withTimeout(c.if(this.keys.log(this.placement.me), "Create", ">", -1).then(...drops, log).commit(), this.session.callTimeout, "log definitions");
      this.written = Number(done.header.revision);
      return;
    }
    // Claims first in the transaction: a node applying this batch already knows where its queues live.
    let txn = c.if(this.keys.queue(puts[0]!.vhost, puts[0]!.name), "Create", "==", 0);
    for (const p of puts.slice(1)) txn = txn.and(this.keys.queue(p.vhost, p.name), "Create", "==", 0);
    const res = await withTimeout(txn.then(...puts.map((p) => c.put(this.keys.queue(p.vhost, p.name)).value(p.home!)), ...drops, log).else(...drops, log).commit(), this.session.callTimeout, "log definitions");
    this.written = Number(res.header.revision);
    if (res.succeeded) {
      for (const p of puts) this.decided(p.vhost, p.name, p.home!);
      return;
    }
    // Some queue was claimed already (declared on another node at once, or re-declared after a restart): claim one by one.
    for (const p of puts) {
      const key = this.keys.queue(p.vhost, p.name);
      const r = await withTimeout(c.if(key, "Create", "==", 0).then(c.put(key).value(p.home!)).else(c.get(key)).commit(), this.session.callTimeout, "claim a queue");
      const winner = r.succeeded ? p.home! : (r.responses[0]?.response_range?.kvs[0]?.value.toString() ?? p.home!);
      this.decided(p.vhost, p.name, winner);
    }
  }

  /**
   * A claim's outcome applied here. Its failure is this node's (the winner's record not applying
   * here), not etcd's: it must not reach `write`, which would take it for a failed etcd call and
   * log the batch again, every RETRY_MS, for ever.
   */
  private decided(vhost: string, name: string, home: string): void {
    try {
      this.claims.decided(vhost, name, home);
    } catch (err) {
      this.logger.warn("spread cluster: a queue's claim was decided in etcd but its outcome did not apply here", { err, vhost, queue: name, home });
    }
  }
}

/**
 * A snapshot without the exclusive queues (and their bindings) of nodes that are not members any
 * more: their owners' connections died with their node, and the snapshot may be older than the
 * loss (the others dropped them when the link was lost, docs/CLUSTERING.md). This node's own are
 * ignored by the applier (a restarted node has none).
 */
export function withLiveOwners(changes: readonly MirroredChange[], members: readonly string[]): MirroredChange[] {
  const gone = new Set<string>();
  for (const c of changes) {
    if (c.kind === "queues" && c.record["exclusive"] === true && !members.includes(String(c.record["owner_node"]))) gone.add(queueKey(String(c.record["vhost"]), String(c.record["name"])));
  }
  if (gone.size === 0) return [...changes];
  return changes.filter((c) => {
    if (c.kind === "queues") return !gone.has(queueKey(String(c.record["vhost"]), String(c.record["name"])));
    return !(c.kind === "bindings" && c.record["destination_type"] === "queue" && gone.has(queueKey(String(c.record["vhost"]), String(c.record["destination"]))));
  });
}
