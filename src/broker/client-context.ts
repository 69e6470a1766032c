/**
 * Who performs an operation: the permission checker of an authenticated user and, for AMQP,
 * the connection that owns exclusive queues. HTTP requests have no owning connection.
 */
import type { PermissionChecker } from "../auth/permission-check.js";

export interface ClientContext {
  readonly permissions: PermissionChecker;
  /** The AMQP connection (identity only) for exclusive-queue ownership; null over HTTP. */
  readonly owner: object | null;
}
