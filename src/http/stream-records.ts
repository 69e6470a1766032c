/**
 * The rabbitmq_stream_management plugin's records of this node's stream-protocol connections, their
 * publishers and their consumers (routes/stream-routes.ts). Under `coney --workers N` a stream
 * client's connection lives in the worker that accepted it, so the plugin's lists of the whole
 * broker are this node's records plus every other worker's (whole-records.ts, as /api/connections):
 * the kinds below are answered to the other workers too (local-records.ts).
 */
import type { ClientConnection, StreamConsumerInfo, StreamPublisherInfo } from "../broker/index.js";
import { streamActivityStatus } from "./detail-records.js";
import type { Item } from "./list-query.js";
import type { RecordsUser } from "./peer-records.js";
import { connectionRecord, type RecordContext } from "./records.js";
import type { RouteContext } from "./route-table.js";

export type StreamRecordsKind = "stream-connections" | "stream-publishers" | "stream-consumers";

/** The fields a publisher's and a consumer's record start with: the stream it works on and the connection it belongs to. */
function onStream(c: ClientConnection, stream: string, node: string): Item {
  const i = c.info();
  return { queue: { name: stream, vhost: c.vhost }, connection_details: { name: i.name, user: i.user, node, peer_port: i.peerPort, peer_host: i.peerHost } };
}

function publisherRecord(c: ClientConnection, p: StreamPublisherInfo, node: string): Item {
  return { ...onStream(c, p.stream, node), publisher_id: p.id, reference: p.reference, published: p.published, confirmed: p.confirmed, errored: p.errored };
}

function consumerRecord(c: ClientConnection, s: StreamConsumerInfo, node: string): Item {
  return {
    ...onStream(c, s.stream, node),
    subscription_id: s.id,
    credits: s.credits,
    consumed: s.consumed,
    offset: s.offset,
    offset_lag: s.offsetLag,
    active: s.active,
    activity_status: streamActivityStatus(s),
    properties: s.properties,
  };
}

/** The publishers of stream connections `conns`, as the plugin lists them. */
export const streamPublishers = (conns: readonly ClientConnection[], node: string): Item[] => conns.flatMap((c) => c.streamDetails!().publishers.map((p) => publisherRecord(c, p, node)));
/** The consumers of stream connections `conns`, as the plugin lists them. */
export const streamConsumers = (conns: readonly ClientConnection[], node: string): Item[] => conns.flatMap((c) => c.streamDetails!().consumers.map((s) => consumerRecord(c, s, node)));

/** This node's stream-protocol connections the user may see (RecordsUser: null = every user's). */
export function streamConnectionsOf(ctx: RouteContext, user: RecordsUser): ClientConnection[] {
  return ctx.broker.connections.list().filter((c) => c.streamDetails !== undefined && (user === null || c.user === user));
}

/** This node's records of `kind` the user may see. */
export function localStreamRecords(ctx: RouteContext, kind: StreamRecordsKind, user: RecordsUser, rc: RecordContext = ctx): Item[] {
  const conns = streamConnectionsOf(ctx, user);
  if (kind === "stream-publishers") return streamPublishers(conns, ctx.node);
  if (kind === "stream-consumers") return streamConsumers(conns, ctx.node);
  return conns.map((c) => connectionRecord(c.info(), rc));
}

/** A record's vhost: a connection's own, a publisher's or consumer's stream's. */
export function recordVhost(r: Item): unknown {
  return r["vhost"] ?? (r["queue"] as { vhost?: unknown } | undefined)?.vhost;
}
