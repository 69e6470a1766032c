/**
 * Who performs an operation: the permission checker of an authenticated user and, for AMQP,
 * the connection that owns exclusive queues. HTTP requests have no owning connection.
 */
import type { PermissionChecker } from "../auth/permission-check.js";
import type { Actor } from "./events/actor.js";

export interface ClientContext {
  readonly permissions: PermissionChecker;
  /** The AMQP connection (identity only) for exclusive-queue ownership; null over HTTP. */
  readonly owner: object | null;
  /** Who acts, for the events an operation announces; absent: the checker's user, source unknown. */
  readonly actor?: Actor;
  /** A change another node made and this one follows (topology-apply.ts): that node checked the client's request (a name's reserved prefix too). */
  readonly followed?: boolean;
}

/** A protocol client's context: its checker, the owning connection, and who acts (a token user is "oauth"). */
export function clientContext(permissions: PermissionChecker, owner: object, source: Actor["source"], peer: string): ClientContext {
  const user = permissions.user;
  return { permissions, owner, actor: { user: user.name, authMethod: user.isInternal ? "basic" : "oauth", source, peer } };
}

/** The actor of an operation done through `ctx`. */
export function actorOf(ctx: ClientContext): Actor {
  return ctx.actor ?? { user: ctx.permissions.user.name, authMethod: ctx.permissions.user.isInternal ? "basic" : "oauth", source: ctx.owner === null ? "http" : "amqp", peer: "" };
}
