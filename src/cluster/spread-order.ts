/**
 * One order for definitions on every node of a spread cluster, the node that made a change too
 * (docs/CLUSTERING.md, "Concurrent changes: etcd's order on every node"). A node applies its own
 * change at once and logs it; etcd's revision of the log put is the change's place in the order.
 * This node's changes not yet seen back through the watch are *pending*: whatever the watch
 * delivers before them is ordered before them. So a batch of another node (`applyOthers`) is
 * applied as if it had come first, and this node's pending changes after it:
 *
 * - no pending change names the same object: applied (the usual case: one node changing);
 * - a pending change of this node names it and sets its whole state (a later put or delete: a
 *   policy, a permission, a parameter, a binding, a user's or vhost's record): skipped — the
 *   pending one overwrites it on every node (last in etcd's order wins);
 * - a delete of a vhost, user, exchange or queue while this node's put of it is pending:
 *   applied (what it removes with it goes), then the pending changes again;
 * - two declares of one exchange: the earlier one in etcd's order stands everywhere (RabbitMQ
 *   keeps the first and refuses a redeclare with other properties); this node's copy is replaced
 *   by the other node's if they differ, and its declare is refused (406 inequivalent arg);
 * - two declares of one queue: its home claim decides (spread-claims.ts `remotePut`).
 *
 * A pending change that no longer applies once the other node's changes are before it (a binding
 * to an exchange deleted first, a permission of a user deleted first) is *refused*: its client is
 * answered RabbitMQ's error instead of ok (TopologyMirror.verdict), and the other nodes refuse it
 * too when they apply it (the applier throws the same error). Invariant: batches are popped in
 * the order they were sent; `latest` names, per object, this node's last pending change of it.
 */
import { declareRefusal, identityOf, type Broker, type LateRefusal, type MirroredChange, type MirroredRecord } from "../broker/index.js";
import { BrokerError } from "../errors/broker-error.js";
import type { Logger } from "../logging/logger.js";

/** Kinds whose deletion removes other records with it (a vhost's contents, a user's permissions, bindings). */
const CASCADING: ReadonlySet<MirroredChange["kind"]> = new Set(["vhosts", "users", "exchanges", "queues"]);

/** How SpreadDefinitions applies changes: another node's (warns when it does not apply), this node's own again (throws), a queue both declared. */
export interface ApplyHooks {
  others(c: MirroredChange): void;
  own(c: MirroredChange): void;
  queuePut(c: MirroredChange, own: MirroredChange): void;
}

interface OwnBatch {
  readonly seq: number;
  readonly changes: readonly MirroredChange[];
}

export class OwnChanges {
  private readonly batches: OwnBatch[] = [];
  private seq = 0;
  /** Per object (identityOf), this node's last pending change of it, and how many of its pending changes name it. */
  private readonly latest = new Map<string, MirroredChange>();
  private readonly counts = new Map<string, number>();
  /** Records told by a client's change since the last `take` (a verdict judges them). */
  private readonly unasked = new Set<MirroredRecord>();
  private readonly refused = new WeakMap<MirroredRecord, BrokerError>();
  /** Records whose client was answered ok while they were still pending: told if they lose later (weak: no entry outlives its record). */
  private readonly answeredPending = new WeakMap<MirroredRecord, LateRefusal>();
  /** This node's pending records (in a batch not yet back through the watch). */
  private readonly pending = new WeakSet<MirroredRecord>();

  constructor(private readonly logger: Logger) {}

  /** No change of this node is waiting for its place in etcd's order. */
  get idle(): boolean {
    return this.batches.length === 0;
  }

  /** A client's change, told to the mirror now: the next `take` judges it. */
  told(record: MirroredRecord): void {
    this.unasked.add(record);
  }

  /** The changes told since the last take (a client's verdict is about them). */
  take(): MirroredRecord[] {
    const records = [...this.unasked];
    this.unasked.clear();
    return records;
  }

  /** The first refusal among `records` (their batches' places are known), or null. */
  refusalOf(records: readonly MirroredRecord[]): BrokerError | null {
    for (const r of records) {
      const err = this.refused.get(r);
      if (err !== undefined) return err;
    }
    return null;
  }

  /**
   * The verdict on `records` was answered ok: those still pending (the barrier gave up before
   * etcd placed them) may lose yet, and then `late` tells their client.
   */
  answered(records: readonly MirroredRecord[], late: LateRefusal): void {
    for (const r of records) if (this.pending.has(r)) this.answeredPending.set(r, late);
  }

  /** A batch leaves for etcd: pending until the watch brings it back. Returns its sequence number. */
  sent(changes: readonly MirroredChange[]): number {
    const seq = ++this.seq;
    this.batches.push({ seq, changes });
    for (const c of changes) {
      this.pending.add(c.record);
      const id = identityOf(c.kind, c.record);
      this.latest.set(id, c);
      this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
    }
    return seq;
  }

  /** The watch brought back this node's batch `seq`: it and every earlier one have their place. */
  seen(seq: number): void {
    while (this.batches.length > 0 && this.batches[0]!.seq <= seq) {
      for (const c of this.batches.shift()!.changes) {
        const id = identityOf(c.kind, c.record);
        const n = (this.counts.get(id) ?? 1) - 1;
        if (n > 0) this.counts.set(id, n);
        else {
          this.counts.delete(id);
          this.latest.delete(id);
        }
        this.unasked.delete(c.record);
        this.pending.delete(c.record);
      }
    }
  }

  /** This node's pending put of one object (the client's declare) lost: its client is told `err`. */
  refuse(record: MirroredRecord, err: BrokerError): void {
    if (this.refused.has(record)) return;
    this.refused.set(record, err);
    const late = this.answeredPending.get(record);
    this.logger.warn("spread cluster: a definition change lost to an earlier one of another node in etcd's order; it is refused", { reason: err.message, ...(late === undefined ? {} : { answeredBefore: true }) });
    if (late === undefined) return;
    // Its client heard ok while etcd did not answer (the barrier's bound): it hears the refusal now.
    this.answeredPending.delete(record);
    late(err);
  }

  /**
   * Another node's batch, at its place in etcd's order (before every pending change of this node).
   * A queue declared here too goes to `hooks.queuePut` (the home claim decides which record stands).
   */
  applyOthers(broker: Broker, batch: readonly MirroredChange[], hooks: ApplyHooks): void {
    const apply = (c: MirroredChange): void => hooks.others(c);
    let again = false;
    for (const c of batch) {
      const own = this.latest.get(identityOf(c.kind, c.record));
      if (own === undefined) {
        apply(c);
        if (c.op === "delete" && CASCADING.has(c.kind) && !this.idle) again = true;
      } else if (own.op === "delete") {
        // This node's later delete removes whatever `c` did.
      } else if (c.op === "delete") {
        // This node's later put restores the object; what went with it goes on every node.
        if (CASCADING.has(c.kind)) {
          apply(c);
          again = true;
        }
      } else if (c.kind === "exchanges") {
        if (this.exchangeDeclaredFirst(broker, c, apply)) again = true;
      } else if (c.kind === "queues") {
        hooks.queuePut(c, own);
      }
      // Otherwise both are puts of a record this node's later one replaces whole: skipped.
    }
    if (again) this.applyPendingAgain(hooks);
  }

  /** The other node's declare of an exchange came first: if it differs, it stands and this node's pending declares are refused. */
  private exchangeDeclaredFirst(broker: Broker, c: MirroredChange, apply: (c: MirroredChange) => void): boolean {
    if (declareRefusal(broker.vhosts, "exchanges", c.record) === null) return false;
    apply({ kind: "exchanges", op: "delete", record: c.record });
    apply(c);
    for (const own of this.pendingOf(c)) {
      const err = own.op === "put" ? declareRefusal(broker.vhosts, "exchanges", own.record) : null;
      if (err !== null) this.refuse(own.record, err);
    }
    return true;
  }

  private pendingOf(c: MirroredChange): MirroredChange[] {
    const id = identityOf(c.kind, c.record);
    return this.batches.flatMap((b) => b.changes.filter((o) => o.kind === c.kind && identityOf(o.kind, o.record) === id));
  }

  /** This node's pending changes, in order, after another node's that removed what they may need: one that no longer applies is refused. */
  private applyPendingAgain(hooks: ApplyHooks): void {
    for (const b of this.batches) {
      for (const own of b.changes) {
        if (this.refused.has(own.record)) continue;
        try {
          hooks.own(own);
        } catch (err) {
          if (err instanceof BrokerError) this.refuse(own.record, err);
          else this.logger.warn("spread cluster: a pending definitions change did not apply again", { err, kind: own.kind });
        }
      }
    }
  }
}
