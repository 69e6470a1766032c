/**
 * Users and their permissions (RabbitMQ's internal user store): create, update and delete users,
 * set a user's limits, and set or clear the permissions and topic permissions a user holds in a
 * vhost. The registry itself (auth/user-registry.ts) checks patterns; this module reports every
 * change to the definitions sink and closes what a deletion leaves without a user.
 */
import type { PermissionSpec } from "../../auth/permission.js";
import { InvalidPatternError } from "../../auth/permission-pattern.js";
import { DEFAULT_HASHING_ALGORITHM, hashPassword, isValidPasswordHash, type HashingAlgorithm } from "../../auth/password.js";
import type { TopicPermissionSpec } from "../../auth/topic-permission.js";
import type { User, UserLimits } from "../../auth/user.js";
import { BrokerError, badRequestTerm } from "../../errors/broker-error.js";
import { checkNameLength } from "../names.js";
import type { Actor } from "../events/actor.js";
import { announce } from "../events/announce.js";
import { userChangeRecord } from "../events/change-records.js";
import { definitionKey, type BrokerState } from "./broker-state.js";
import { objectNotFound, vhostOrUserNotFound } from "../../errors/reasons.js";

export interface UserInput {
  password?: string;
  passwordHash?: string;
  hashingAlgorithm?: HashingAlgorithm;
  tags: string[];
  limits?: UserLimits;
}

/** A user as RabbitMQ's definitions file records it. */
export function userDefinition(u: User): Record<string, unknown> {
  return { name: u.name, password_hash: u.passwordHash, hashing_algorithm: u.hashingAlgorithm, tags: u.tags, limits: u.limits };
}

/**
 * Creates or updates a user. Give `password` (hashed here) or `passwordHash` (+ algorithm), or
 * neither (the user then cannot log in with a password). Returns true when it was created.
 */
export function putUser(b: BrokerState, name: string, input: UserInput, actor: Actor): boolean {
  checkNameLength("user", name);
  const algorithm = input.hashingAlgorithm ?? DEFAULT_HASHING_ALGORITHM;
  if (input.passwordHash !== undefined && !isValidPasswordHash(input.passwordHash, algorithm)) {
    throw /^[A-Za-z0-9+/]*={0,2}$/.test(input.passwordHash) ? new BrokerError("badRequest", "not_hash") : badRequestTerm("not_base64", input.passwordHash);
  }
  const passwordHash = input.password !== undefined ? hashPassword(input.password, algorithm) : (input.passwordHash ?? "");
  const existing = b.users.get(name);
  const before = userChangeRecord(existing);
  const user: User = { name, passwordHash, hashingAlgorithm: algorithm, tags: input.tags, limits: input.limits ?? existing?.limits ?? {}, isInternal: true };
  b.users.put(user);
  b.definitions.put("users", name, userDefinition(user));
  b.mirror?.put("users", userDefinition(user));
  if (b.events.listening) announceUserPut(b, actor, before, user, input.password !== undefined || input.passwordHash !== undefined);
  return !existing;
}

/**
 * RabbitMQ's events for a created or updated user: user.created, or user.password.changed when a
 * password (or hash) was given, or else user.tags.set; then user.tags.set too when the tags
 * changed. The first carries the audit's change record.
 */
function announceUserPut(b: BrokerState, actor: Actor, before: ReturnType<typeof userChangeRecord>, user: User, passwordGiven: boolean): void {
  const name = user.name;
  const change = { action: "user.put", vhost: null, object: name, before, after: userChangeRecord(user) };
  const first = before === null ? "user.created" : passwordGiven ? "user.password.changed" : "user.tags.set";
  announce(b, actor, first, first === "user.tags.set" ? { name, tags: user.tags } : { name }, change);
  const tagsChanged = (before?.tags.join(",") ?? "") !== user.tags.join(",");
  if (first !== "user.tags.set" && tagsChanged) announce(b, actor, "user.tags.set", { name, tags: user.tags });
}

/** Sets (a number) or clears (null) one of a user's limits: max-connections, max-channels. */
export function setUserLimit(b: BrokerState, name: string, limit: keyof UserLimits, value: number | null, actor: Actor): void {
  const user = b.users.get(name);
  if (!user) throw badRequestTerm("no_such_user", name);
  const before = userChangeRecord(user);
  const limits: UserLimits = { ...user.limits };
  if (value === null) delete limits[limit];
  else limits[limit] = value;
  user.limits = limits;
  b.users.put(user);
  b.definitions.put("users", name, userDefinition(user));
  b.mirror?.put("users", userDefinition(user));
  const change = { action: "user.limit.set", vhost: null, object: name, before, after: userChangeRecord(user) };
  announce(b, actor, value === null ? "user.limits.cleared" : "user.limits.set", { name, definition: limits }, change);
}

/** Deletes a user, its permissions, and closes its connections. */
export function deleteUser(b: BrokerState, name: string, actor: Actor): void {
  const before = userChangeRecord(b.users.get(name));
  if (!before) throw objectNotFound();
  for (const p of b.users.permissionsOfUser(name)) b.definitions.delete("permissions", definitionKey(p.vhost, name));
  b.users.delete(name);
  b.definitions.delete("users", name);
  b.mirror?.delete("users", { name });
  for (const conn of b.connections.ofUser(name)) conn.forceClose(`user '${name}' is deleted`);
  announce(b, actor, "user.deleted", { name }, { action: "user.delete", vhost: null, object: name, before, after: null });
}

/** Sets the three patterns of (user, vhost); an invalid pattern changes nothing. Returns true when created. */
export function setPermission(b: BrokerState, user: string, vhost: string, spec: PermissionSpec, actor: Actor): boolean {
  if (!b.users.get(user) || !b.vhosts.has(vhost)) throw vhostOrUserNotFound();
  const old = b.users.permission(user, vhost);
  const before = old ? { configure: old.configure, write: old.write, read: old.read } : null;
  refusingInvalidPatterns(() => b.users.setPermission(user, vhost, spec));
  const after = { configure: spec.configure, write: spec.write, read: spec.read };
  b.definitions.put("permissions", definitionKey(vhost, user), { user, vhost, ...after });
  b.mirror?.put("permissions", { user, vhost, ...after });
  announce(b, actor, "permission.created", { user, vhost, ...after }, { action: "permission.set", vhost, object: user, before, after });
  return !old;
}

export function clearPermission(b: BrokerState, user: string, vhost: string, actor: Actor): void {
  const old = b.users.permission(user, vhost);
  if (!b.users.clearPermission(user, vhost)) throw objectNotFound();
  b.definitions.delete("permissions", definitionKey(vhost, user));
  b.mirror?.delete("permissions", { user, vhost });
  const before = old ? { configure: old.configure, write: old.write, read: old.read } : null;
  announce(b, actor, "permission.deleted", { user, vhost }, { action: "permission.clear", vhost, object: user, before, after: null });
}

/** Sets the topic permission of (user, vhost, exchange); an invalid pattern changes nothing. Returns true when created. */
export function setTopicPermission(b: BrokerState, user: string, vhost: string, spec: TopicPermissionSpec, actor: Actor): boolean {
  if (!b.users.get(user) || !b.vhosts.has(vhost)) throw vhostOrUserNotFound();
  const old = b.users.topicPermission(user, vhost, spec.exchange);
  const created = refusingInvalidPatterns(() => b.users.setTopicPermission(user, vhost, spec));
  b.definitions.put("topic_permissions", definitionKey(vhost, user, spec.exchange), { user, vhost, ...spec });
  b.mirror?.put("topic_permissions", { user, vhost, ...spec });
  const before = old ? { exchange: old.exchange, write: old.write, read: old.read } : null;
  const after = { exchange: spec.exchange, write: spec.write, read: spec.read };
  announce(b, actor, "topic.permission.created", { user, vhost, ...after }, { action: "topic_permission.set", vhost, object: user, before, after });
  return created;
}

/** Clears one exchange's topic permission of (user, vhost), or all of them; 404 when there was none. */
export function clearTopicPermissions(b: BrokerState, user: string, vhost: string, exchange: string | undefined, actor: Actor): void {
  const gone = b.users.clearTopicPermissions(user, vhost, exchange);
  if (gone.length === 0) throw objectNotFound();
  for (const p of gone) {
    b.definitions.delete("topic_permissions", definitionKey(vhost, user, p.exchange));
    b.mirror?.delete("topic_permissions", { user, vhost, exchange: p.exchange });
  }
  const before = gone.map((p) => ({ exchange: p.exchange, write: p.write, read: p.read }));
  announce(b, actor, "topic.permission.deleted", { user, vhost }, { action: "topic_permission.clear", vhost, object: user, before, after: null });
}

/** Runs a registry change; a pattern that does not compile is the caller's bad request. */
function refusingInvalidPatterns<T>(change: () => T): T {
  try {
    return change();
  } catch (err) {
    if (err instanceof InvalidPatternError) throw new BrokerError("badRequest", err.message);
    throw err;
  }
}
