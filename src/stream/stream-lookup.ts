/**
 * Finding the stream a command names, with RabbitMQ's answers: the permission first (ACCESS_REFUSED),
 * then a queue that is a stream (STREAM_DOES_NOT_EXIST for a missing one or another queue type),
 * and the domain's errors mapped onto the protocol's response codes.
 */
import { BrokerError } from "../errors/broker-error.js";
import { RemoteStreamQueue, StreamQueue } from "../broker/index.js";
import type { PermissionKind } from "../auth/permission.js";
import { RC } from "./protocol.js";
import type { StreamContext } from "./stream-context.js";

/** The stream, or the response code that refuses the command. */
export function streamFor(c: StreamContext, name: string | null, kind: PermissionKind | null): StreamQueue | number {
  if (name === null || name === "") return RC.streamDoesNotExist;
  if (kind !== null && !c.permissions.allows(c.openVhost.name, kind, name)) return RC.accessRefused;
  const q = c.openVhost.queues.get(name);
  // Led by another worker: its log is there, so is every command on it (Metadata names that worker's
  // port), as RabbitMQ answers a node holding no member of the stream (stream-worker-ports.ts).
  if (q instanceof RemoteStreamQueue && !q.isDeleted && !q.deletingOnLeader) return RC.streamNotAvailable;
  if (!(q instanceof StreamQueue) || q.isDeleted) return RC.streamDoesNotExist;
  return q;
}

/** A stream another worker leads, by name (permission not checked); null for a local or unknown one. */
export function remoteStream(c: StreamContext, name: string | null): RemoteStreamQueue | null {
  const q = name === null ? undefined : c.openVhost.queues.get(name);
  // One whose deletion this node asked for is gone for its clients already (RemoteQueue.deletingOnLeader).
  return q instanceof RemoteStreamQueue && !q.isDeleted && !q.deletingOnLeader ? q : null;
}

/** A domain error as a response code. */
export function codeOf(err: unknown): number {
  if (!(err instanceof BrokerError)) return RC.internalError;
  switch (err.kind) {
    case "accessRefused":
    case "forbidden":
    case "notAuthorized":
      return RC.accessRefused;
    case "notFound":
    case "objectNotFound":
      return RC.streamDoesNotExist;
    case "preconditionFailed":
    case "badRequest":
    case "resourceLocked":
      return RC.preconditionFailed;
    default:
      return RC.internalError;
  }
}
