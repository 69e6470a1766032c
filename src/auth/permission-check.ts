/**
 * The spec's check order for every client operation: (a) the user is authenticated (done at
 * login), (b) the user has a permission record for the vhost, (c) the pattern of the needed kind
 * matches the resource name. Results are cached per client (a connection, an HTTP request) and
 * the cache is dropped whenever the registry's revision moves, so the hot path (basic.publish)
 * costs one Map lookup and no regex.
 *
 * `explain` is the one decision: `allows` (what every operation is checked with) caches its
 * `allowed`, and the permission explainer (/api/coney/explain-permission) shows the rest, so an
 * explanation can never disagree with enforcement.
 */
import { accessRefused, BrokerError } from "../errors/broker-error.js";
import type { PermissionKind } from "./permission.js";
import type { TopicKind } from "./topic-permission.js";
import type { UserRegistry } from "./user-registry.js";
import type { User } from "./user.js";

/** Grants from outside the registry (OAuth 2.0 scopes). When set, they replace registry permissions. */
export interface ExternalGrants {
  hasVhostAccess(vhost: string): boolean;
  /** The grant (e.g. the scope's text) that allows `kind` on `name`, or null when none does. */
  grantFor(vhost: string, kind: PermissionKind, name: string): string | null;
  /** Topic authorisation from the grants (OAuth 2.0 scopes with a routing-key part); absent: none. */
  allowsTopic?(vhost: string, exchange: string, kind: TopicKind, routingKey: string): boolean;
}

/**
 * Which check of the order (b) vhost access, (c) pattern decided, and the rule consulted there:
 * the user's pattern of the needed kind, or with OAuth 2.0 the scope that allowed (null when no
 * scope did). Authentication, (a), happened before a checker exists.
 */
export type PermissionDecision =
  | { readonly allowed: false; readonly decidedBy: "vhost_access"; readonly rule: null }
  | { readonly allowed: boolean; readonly decidedBy: "pattern"; readonly rule: string }
  | { readonly allowed: boolean; readonly decidedBy: "scope"; readonly rule: string | null };

const NO_VHOST_ACCESS: PermissionDecision = { allowed: false, decidedBy: "vhost_access", rule: null };

/**
 * Topic authorisation's decision: by the user's topic permission for the exchange (its pattern of
 * the kind, before {username}/{vhost} expansion), by a token's scopes, or by none ("none": no
 * topic permission for this exchange, so keys are not restricted).
 */
export type TopicDecision =
  | { readonly allowed: true; readonly decidedBy: "none"; readonly rule: null }
  | { readonly allowed: boolean; readonly decidedBy: "pattern"; readonly rule: string }
  | { readonly allowed: boolean; readonly decidedBy: "scope"; readonly rule: null };

const NO_TOPIC_RULE: TopicDecision = { allowed: true, decidedBy: "none", rule: null };

export class PermissionChecker {
  private revision = -1;
  private readonly cache = new Map<string, boolean>();
  /** The last question `allows` answered (valid for the same registry revision and grants). */
  private lastVhost = "";
  private lastKind: PermissionKind = "read";
  private lastName: string | null = null;
  private lastAllowed = false;
  /**
   * The MQTT client id of the connection this checker serves, for `{client_id}` in topic
   * permission patterns (RabbitMQ's MQTT variable map); null for other protocols.
   */
  clientId: string | null = null;

  constructor(
    private readonly registry: UserRegistry,
    readonly user: User,
    private grants: ExternalGrants | null = null,
  ) {}

  /** A refreshed OAuth 2.0 token (connection.update-secret): its scopes apply from the next operation. */
  replaceGrants(grants: ExternalGrants): void {
    this.grants = grants;
    this.cache.clear();
    this.lastName = null;
  }

  /** (b) of the check order: does the user have any permission in this vhost? */
  hasVhostAccess(vhost: string): boolean {
    if (this.grants) return this.grants.hasVhostAccess(vhost);
    return this.registry.permission(this.user.name, vhost) !== undefined;
  }

  allows(vhost: string, kind: PermissionKind, name: string): boolean {
    if (this.revision !== this.registry.revision) {
      this.cache.clear();
      this.lastName = null;
      this.revision = this.registry.revision;
    }
    // A publisher asks the same question for every message: answered without building the key.
    if (name === this.lastName && kind === this.lastKind && vhost === this.lastVhost) return this.lastAllowed;
    const key = `${kind}\u0000${vhost}\u0000${name}`;
    let ok = this.cache.get(key);
    if (ok === undefined) {
      ok = this.explain(vhost, kind, name).allowed;
      if (this.cache.size > 4096) this.cache.clear();
      this.cache.set(key, ok);
    }
    this.lastVhost = vhost;
    this.lastKind = kind;
    this.lastName = name;
    this.lastAllowed = ok;
    return ok;
  }

  /** The uncached decision, with the check that made it; `allows` is its `allowed`. */
  explain(vhost: string, kind: PermissionKind, name: string): PermissionDecision {
    if (this.grants) {
      if (!this.grants.hasVhostAccess(vhost)) return NO_VHOST_ACCESS;
      const scope = this.grants.grantFor(vhost, kind, name);
      return { allowed: scope !== null, decidedBy: "scope", rule: scope };
    }
    const p = this.registry.permission(this.user.name, vhost);
    if (!p) return NO_VHOST_ACCESS;
    return { allowed: p.allows(kind, name), decidedBy: "pattern", rule: p[kind] };
  }

  /**
   * Throws RabbitMQ's ACCESS_REFUSED text when the pattern of `kind` does not match. Patterns
   * see the default exchange as "" (the spec); the text names it amq.default, as RabbitMQ does.
   */
  check(vhost: string, kind: PermissionKind, resource: "queue" | "exchange", name: string): void {
    if (!this.allows(vhost, kind, name)) throw this.refusal(resource, name, vhost);
  }

  /** The ACCESS_REFUSED a refused operation on this resource gets (the explainer shows it too). */
  refusal(resource: "queue" | "exchange", name: string, vhost: string): BrokerError {
    return accessRefused(resource, resource === "exchange" && name === "" ? "amq.default" : name, vhost, this.user.name);
  }

  /**
   * Topic authorisation (RabbitMQ): on a topic exchange, publishing needs the routing key to
   * match the user's topic write pattern for that exchange, binding the binding key its read
   * pattern. No topic permission for the exchange: no restriction. Costs one counter read when
   * no topic permission exists anywhere. A token login's topic rules are its scopes' routing-key
   * parts (`rabbitmq.write:vhost/exchange/key*`).
   */
  checkTopic(vhost: string, exchange: string, kind: TopicKind, routingKey: string): void {
    let allowed: boolean;
    if (this.grants) {
      allowed = this.grants.allowsTopic?.(vhost, exchange, kind, routingKey) ?? true;
    } else {
      if (this.registry.topicPermissionCount === 0) return;
      allowed = this.registry.topicPermission(this.user.name, vhost, exchange)?.allows(kind, routingKey, this.clientId) ?? true;
    }
    if (!allowed) throw this.topicRefusal(vhost, exchange, routingKey);
  }

  /**
   * checkTopic's decision with the rule it came from, for the permission explainer (the same
   * lookups; checkTopic stays allocation-free on the publish path).
   */
  explainTopic(vhost: string, exchange: string, kind: TopicKind, routingKey: string): TopicDecision {
    if (this.grants) {
      if (!this.grants.allowsTopic) return NO_TOPIC_RULE;
      return { allowed: this.grants.allowsTopic(vhost, exchange, kind, routingKey), decidedBy: "scope", rule: null };
    }
    const tp = this.registry.topicPermissionCount === 0 ? undefined : this.registry.topicPermission(this.user.name, vhost, exchange);
    if (!tp) return NO_TOPIC_RULE;
    return { allowed: tp.allows(kind, routingKey, this.clientId), decidedBy: "pattern", rule: tp[kind] };
  }

  /** The ACCESS_REFUSED of a routing (or binding) key refused by topic authorisation. */
  topicRefusal(vhost: string, exchange: string, routingKey: string): BrokerError {
    return new BrokerError("accessRefused", `access to topic '${routingKey}' in exchange '${exchange}' in vhost '${vhost}' refused for user '${this.user.name}'`);
  }

  /** For operations on a vhost as a whole (connection.open): NOT_ALLOWED when there is no record. */
  checkVhost(vhost: string): void {
    if (!this.hasVhostAccess(vhost)) {
      throw new BrokerError("notAllowed", `access to vhost '${vhost}' refused for user '${this.user.name}'`);
    }
  }
}
