/**
 * What every queue type has from its declaration, whatever keeps its messages: its identity
 * (vhost, name, flags, arguments, type), the bindings into it, its routing epoch stamp, its
 * activity clock and counters, its resolved settings, whether it is deleted, and RabbitMQ's
 * exclusive-queue rule. MessageQueue (classic, quorum; through QueueContents) and StreamQueue
 * extend it and implement the rest of the queue-type interface (queue-type.ts) each their own
 * way; nothing here is overridden.
 */
import { BrokerError, describeResource } from "../../errors/broker-error.js";
import type { Binding } from "../binding.js";
import type { FieldTable } from "../values/field-value.js";
import { resolveQueueSettings, type QueueSettings } from "./queue-settings.js";
import type { QueueSpec } from "./queue-spec.js";
import type { QueueType } from "./queue-type-rules.js";
import type { QueueHost, QueueStats } from "./queue-type.js";

export abstract class DeclaredQueue implements QueueSpec {
  readonly kind = "queue" as const;
  readonly name: string;
  readonly durable: boolean;
  readonly autoDelete: boolean;
  readonly exclusiveOwner: object | null;
  /** Its queue group (queue-groups.ts), fixed at declare; null for an exclusive queue, which joins none. */
  readonly group: number | null;
  /** As declared; replaced whole only by replaceExpires. */
  arguments: FieldTable;
  readonly type: QueueType;
  readonly singleActiveConsumer: boolean;
  /** Bindings that route into this queue (the default exchange's implicit one excluded); kept by the vhost. */
  readonly boundFrom = new Set<Binding>();
  /** Routing epoch stamp, see VHost.route. */
  routeEpoch = 0;
  readonly createdAt: number;
  /** Deliveries held in ack mode, not yet settled. */
  unacked = 0;
  unackedBytes = 0;
  /** ms since epoch of the last consumer activity, for idle_since. */
  lastActivity: number;
  /** Resolved from arguments and policies (queue-settings.ts); replaced by applyPolicy(). */
  settings: QueueSettings;
  readonly stats: QueueStats = { publish: 0, deliver: 0, deliverNoAck: 0, get: 0, getNoAck: 0, ack: 0, redeliver: 0, getEmpty: 0 };
  /** Only RemoteQueue leads elsewhere; publish-flow.ts reads it beside the type. */
  readonly leadsElsewhere: boolean = false;
  get leaderNode(): string | null {
    return null;
  }
  protected deleted = false;
  protected readonly now: () => number;

  constructor(readonly vhost: string, spec: QueueSpec, protected readonly host: QueueHost) {
    this.name = spec.name;
    this.durable = spec.durable;
    this.autoDelete = spec.autoDelete;
    this.exclusiveOwner = spec.exclusiveOwner;
    this.group = spec.group ?? null;
    this.arguments = spec.arguments;
    const type = spec.arguments["x-queue-type"];
    this.type = type === "quorum" || type === "stream" ? type : "classic";
    this.singleActiveConsumer = spec.arguments["x-single-active-consumer"] === true;
    this.now = host.now;
    this.settings = resolveQueueSettings(spec.arguments, {});
    this.createdAt = host.now();
    this.lastActivity = this.createdAt;
  }

  get isDeleted(): boolean {
    return this.deleted;
  }

  /** Redeclare counts as use for x-expires. */
  touch(): void {
    this.lastActivity = this.now();
  }

  /**
   * RabbitMQ's exclusive-queue rule: only the owning connection may use it. `strict` (redeclare)
   * also refuses an exclusive declare of a queue that is not exclusive.
   */
  checkExclusiveAccess(owner: object | null, strict = false): void {
    if (this.exclusiveOwner !== owner && (strict || this.exclusiveOwner !== null)) {
      throw new BrokerError(
        "resourceLocked",
        `cannot obtain exclusive access to locked ${describeResource("queue", this.name, this.vhost)}. It could be originally declared on another connection or the exclusive property value does not match that of the original declaration.`,
      );
    }
  }

  /**
   * Replaces the queue's x-expires argument (an MQTT 5 client changing its session expiry on
   * DISCONNECT, as RabbitMQ updates the session queue's argument); the settings are resolved again
   * with the queue's current policy.
   */
  replaceExpires(ms: number, policy: Readonly<Record<string, unknown>>): void {
    this.arguments = { ...this.arguments, "x-expires": ms };
    this.applyPolicy(policy);
  }

  /** A policy (or operator policy) took effect or changed; each type applies its settings its own way. */
  abstract applyPolicy(definition: Readonly<Record<string, unknown>>): void;
}
