/**
 * What the broker announces when something changes (events/domain-events.ts carries it to its
 * listeners). `name` is RabbitMQ's event name, the routing key on amq.rabbitmq.event
 * ("queue.created", "permission.deleted", …), and `props` its properties; a configuration change
 * (users, permissions, vhosts, policies, parameters, limits, definitions imports) also carries
 * `change`, the before and after records the audit trail keeps. A refused configuration change is
 * announced too, with `failure` and no name (nothing happened that RabbitMQ would announce).
 *
 * Records never hold a password or a password hash (see change-records.ts).
 */
import type { Actor } from "./actor.js";

export interface ConfigChange {
  /** Coney's audit action: "user.put", "permission.set", "policy.clear", "definitions.import", … */
  readonly action: string;
  /** The vhost the object lives in; null for users, global parameters and whole imports. */
  readonly vhost: string | null;
  /** The object's name: a user, "user in vhost", a policy name, "component/name", … */
  readonly object: string;
  /** The record before the change; null when it did not exist (undefined when unknown: a refused change). */
  readonly before?: unknown;
  /** The record after the change; null when it is gone (for a refused change: what was asked for). */
  readonly after?: unknown;
}

export interface EventFailure {
  readonly error: string;
  readonly reason: string;
}

export interface DomainEvent {
  /** RabbitMQ's event name; null for a refused change, which RabbitMQ announces no event for. */
  readonly name: string | null;
  /** ms since the epoch. */
  readonly at: number;
  readonly actor: Actor;
  /** RabbitMQ's event properties, user_who_performed_action and the timestamp aside. */
  readonly props: Readonly<Record<string, unknown>>;
  /** Set for a configuration change (what the audit trail records); null for the rest. */
  readonly change: ConfigChange | null;
  readonly failure: EventFailure | null;
}
