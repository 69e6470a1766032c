/**
 * Live definitions following (issue 42; docs/CLUSTERING.md, "Per group: leadership, store,
 * replication" and "Following definitions live"): every change of topology made on this node —
 * users, vhosts, permissions, policies, parameters, exchanges, queues and bindings, durable or
 * not — is told to the broker's `mirror` as a RabbitMQ definitions-format record, so another node
 * can apply it (topology-apply.ts) and route with the same definitions.
 *
 * It differs from the DefinitionsSink (what survives a restart) in three ways: transient exchanges,
 * queues and bindings are told too (another node must route to them); a removal carries the
 * record that names what went (a binding's key alone does not name its destination); and a
 * removal that follows from another one (a vhost's contents, a user's permissions) is not told,
 * because applying the first one cascades the same way on the other node.
 *
 * Exclusive queues are told too, with their owner's node (`exclusive`, `owner_node`): one lives and
 * dies with its connection on its own node, and the others hold it as a RemoteQueue to that node
 * (owner-elsewhere.ts; design, "Exclusive queues and direct reply-to"). A single node has no
 * mirror (null), so no record is built for it.
 */
import type { BrokerError } from "../errors/broker-error.js";
import type { DefinitionKind } from "./definitions-sink.js";

/** Told a change's refusal that came after its client was answered ok (TopologyMirror.verdict). */
export type LateRefusal = (refusal: BrokerError) => void;

export interface TopologyMirror {
  /** A record was created or replaced on this node. */
  put(kind: DefinitionKind, record: MirroredRecord): void;
  /** A record went; `record` holds at least the fields that name it (see identityOf). */
  delete(kind: DefinitionKind, record: MirroredRecord): void;
  /**
   * Resolves once every other node that follows has applied what was told so far (absent: the
   * transport cannot tell). A client's declare-ok / bind-ok waits for it, so a publish made anywhere
   * after the client heard the answer routes to what it declared, as after RabbitMQ's transaction.
   */
  settled?(): Promise<void>;
  /**
   * As `settled`, for the client whose change was told just before (in the same turn): rejects
   * with RabbitMQ's error when that change lost to an earlier one made on another node (a spread
   * cluster: docs/CLUSTERING.md, "Concurrent changes: etcd's order on every node") — e.g. a
   * declare of an exchange another node declared first with another type. Absent: never refused.
   * `late`, when given, is called with the refusal if it comes only after this resolved ok (the
   * barrier gave up while etcd did not answer, and the change lost once it did).
   */
  verdict?(late?: LateRefusal): Promise<void>;
}

/** A definitions-format record: plain JSON (field tables as definitions.json holds them). */
export type MirroredRecord = Readonly<Record<string, unknown>>;

/** One change as it travels between nodes. */
export interface MirroredChange {
  readonly kind: DefinitionKind;
  readonly op: "put" | "delete";
  readonly record: MirroredRecord;
}
