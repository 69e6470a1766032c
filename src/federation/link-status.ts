/**
 * A link as GET /api/federation-links shows it (RabbitMQ's rabbit_federation_status:format and
 * rabbit_federation_mgmt:format): what it federates, from which upstream, its status with the
 * error or the local connection, the URI without credentials, when the status last changed.
 */
import type { FederationLink } from "./link.js";

/** RabbitMQ prints the timestamp as "YYYY-MM-DD H:MM:SS" in the node's local time. */
export function statusTimestamp(ms: number): string {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${d.getHours()}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

export function linkRecord(link: FederationLink, node: string): Record<string, unknown> {
  const identity: Record<string, unknown> =
    link.kind === "exchange"
      ? { exchange: link.name, upstream_exchange: link.upstreamResource }
      : { queue: link.name, upstream_queue: link.upstreamResource, consumer_tag: link.upstream.consumerTag };
  const status: Record<string, unknown> =
    link.state === "running" ? { status: "running", local_connection: link.connectionName } : link.state === "error" ? { status: "error", error: link.error ?? "" } : { status: "starting" };
  return {
    node,
    ...identity,
    type: link.kind,
    vhost: link.vhost,
    upstream: link.upstream.name,
    id: linkId(link),
    ...status,
    uri: link.uri,
    timestamp: statusTimestamp(link.since),
  };
}

/** A link's id: 8 hex digits of a hash of (resource, upstream, upstream resource), stable across restarts. */
export function linkId(link: FederationLink): string {
  const key = `${link.kind}\0${link.vhost}\0${link.name}\0${link.upstream.name}\0${link.upstreamResource}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}
