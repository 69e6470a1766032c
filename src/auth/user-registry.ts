/**
 * Users and their per-vhost permissions. A plain in-memory registry: the Broker validates,
 * persists and announces changes; this class only holds the state and answers questions.
 *
 * `revision` grows on every permission or user change; permission caches compare it on each
 * lookup so that a changed permission applies to the next operation of open connections.
 */
import { Permission, type PermissionSpec } from "./permission.js";
import { TopicPermission, type TopicPermissionSpec } from "./topic-permission.js";
import type { User } from "./user.js";

const byVhostAndUser = <T extends { vhost: string; user: string }>(list: T[]): T[] =>
  list.sort((a, b) => (a.vhost < b.vhost ? -1 : a.vhost > b.vhost ? 1 : a.user < b.user ? -1 : a.user > b.user ? 1 : 0));

export class UserRegistry {
  private readonly users = new Map<string, User>();
  /** vhost → user → permission */
  private readonly permissions = new Map<string, Map<string, Permission>>();
  /** vhost → user → exchange → topic permission */
  private readonly topicPermissions = new Map<string, Map<string, Map<string, TopicPermission>>>();
  /** How many topic permissions exist: publishing skips topic checks entirely while it is 0. */
  topicPermissionCount = 0;
  revision = 0;

  get(name: string): User | undefined {
    return this.users.get(name);
  }

  list(): User[] {
    return [...this.users.values()];
  }

  put(user: User): void {
    this.users.set(user.name, user);
    this.revision++;
  }

  delete(name: string): boolean {
    const existed = this.users.delete(name);
    for (const perUser of this.permissions.values()) perUser.delete(name);
    for (const v of this.topicPermissions.keys()) this.clearTopicPermissions(name, v);
    this.revision++;
    return existed;
  }

  permission(user: string, vhost: string): Permission | undefined {
    return this.permissions.get(vhost)?.get(user);
  }

  /** Throws InvalidPatternError (nothing stored) when a pattern is invalid. */
  setPermission(user: string, vhost: string, spec: PermissionSpec): Permission {
    const p = new Permission(user, vhost, spec);
    let perUser = this.permissions.get(vhost);
    if (!perUser) this.permissions.set(vhost, (perUser = new Map()));
    perUser.set(user, p);
    this.revision++;
    return p;
  }

  clearPermission(user: string, vhost: string): boolean {
    const existed = this.permissions.get(vhost)?.delete(user) ?? false;
    this.revision++;
    return existed;
  }

  /** Drops every permission in a vhost (the vhost is being deleted). */
  clearVhost(vhost: string): void {
    this.permissions.delete(vhost);
    for (const perExchange of this.topicPermissions.get(vhost)?.values() ?? []) this.topicPermissionCount -= perExchange.size;
    this.topicPermissions.delete(vhost);
    this.revision++;
  }

  /** In RabbitMQ's listing order: by vhost, then user. */
  allPermissions(): Permission[] {
    const out: Permission[] = [];
    for (const perUser of this.permissions.values()) out.push(...perUser.values());
    return byVhostAndUser(out);
  }

  permissionsOfVhost(vhost: string): Permission[] {
    return byVhostAndUser([...(this.permissions.get(vhost)?.values() ?? [])]);
  }

  permissionsOfUser(user: string): Permission[] {
    return this.allPermissions().filter((p) => p.user === user);
  }

  // ------------------------------------------------------------ topic permissions

  topicPermission(user: string, vhost: string, exchange: string): TopicPermission | undefined {
    return this.topicPermissions.get(vhost)?.get(user)?.get(exchange);
  }

  /** Throws InvalidPatternError (nothing stored) when a pattern is invalid. Returns true when created. */
  setTopicPermission(user: string, vhost: string, spec: TopicPermissionSpec): boolean {
    const p = new TopicPermission(user, vhost, spec);
    let perUser = this.topicPermissions.get(vhost);
    if (!perUser) this.topicPermissions.set(vhost, (perUser = new Map()));
    let perExchange = perUser.get(user);
    if (!perExchange) perUser.set(user, (perExchange = new Map()));
    // RabbitMQ answers 201 only for the first topic permission of (user, vhost).
    const created = perExchange.size === 0;
    if (!perExchange.has(spec.exchange)) this.topicPermissionCount++;
    perExchange.set(spec.exchange, p);
    this.revision++;
    return created;
  }

  /** Clears one exchange's topic permission, or all of (user, vhost) when `exchange` is omitted. */
  clearTopicPermissions(user: string, vhost: string, exchange?: string): TopicPermission[] {
    const perExchange = this.topicPermissions.get(vhost)?.get(user);
    if (!perExchange) return [];
    const gone = exchange === undefined ? [...perExchange.values()] : [perExchange.get(exchange)].filter((p): p is TopicPermission => p !== undefined);
    for (const p of gone) perExchange.delete(p.exchange);
    if (perExchange.size === 0) this.topicPermissions.get(vhost)!.delete(user);
    this.topicPermissionCount -= gone.length;
    this.revision++;
    return gone;
  }

  allTopicPermissions(): TopicPermission[] {
    const out: TopicPermission[] = [];
    for (const perUser of this.topicPermissions.values()) for (const perExchange of perUser.values()) out.push(...perExchange.values());
    return out;
  }

  topicPermissionsOf(filter: { user?: string; vhost?: string }): TopicPermission[] {
    return this.allTopicPermissions().filter((p) => (filter.user === undefined || p.user === filter.user) && (filter.vhost === undefined || p.vhost === filter.vhost));
  }
}
