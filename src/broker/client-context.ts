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
}

/** The actor of an operation done through `ctx`. */
export function actorOf(ctx: ClientContext): Actor {
  return ctx.actor ?? { user: ctx.permissions.user.name, authMethod: "basic", source: ctx.owner === null ? "http" : "amqp", peer: "" };
}
