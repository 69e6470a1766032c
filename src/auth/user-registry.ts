/**
 * Users and their per-vhost permissions. A plain in-memory registry: the Broker validates,
 * persists and announces changes; this class only holds the state and answers questions.
 *
 * `revision` grows on every permission or user change; permission caches compare it on each
 * lookup so that a changed permission applies to the next operation of open connections.
 */
import { Permission, type PermissionSpec } from "./permission.js";
import type { User } from "./user.js";

export class UserRegistry {
  private readonly users = new Map<string, User>();
  /** vhost → user → permission */
  private readonly permissions = new Map<string, Map<string, Permission>>();
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
    this.revision++;
  }

  allPermissions(): Permission[] {
    const out: Permission[] = [];
    for (const perUser of this.permissions.values()) out.push(...perUser.values());
    return out;
  }

  permissionsOfVhost(vhost: string): Permission[] {
    return [...(this.permissions.get(vhost)?.values() ?? [])];
  }

  permissionsOfUser(user: string): Permission[] {
    return this.allPermissions().filter((p) => p.user === user);
  }
}
