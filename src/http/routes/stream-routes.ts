/**
 * The rabbitmq_stream_management plugin's API: /api/stream/connections[/{vhost}[/{name}]] (the
 * stream-protocol connections, with their publishers and consumers), /api/stream/publishers
 * [/{vhost}[/{stream}]] and /api/stream/consumers[/{vhost}], with the plugin's fields. Stream
 * connections are found in the broker's connection registry (their `streamDetails`), whatever
 * transport serves them. Visibility as /api/connections: monitors see all, others their own.
 */
import type { FastifyInstance } from "fastify";
import { isAdministrator, isMonitor } from "../../auth/user.js";
import type { ClientConnection, StreamConsumerInfo, StreamPublisherInfo } from "../../broker/index.js";
import { requireVhost, type Caller } from "../http-auth.js";
import { objectNotFound } from "../http-errors.js";
import { notAuthorisedForObject } from "../../errors/reasons.js";
import { listResponse } from "../list-query.js";
import { connectionRecord } from "../records.js";
import { streamActivityStatus } from "../detail-records.js";
import { noContent, resource, type RouteContext } from "../route-table.js";

function connectionDetails(c: ClientConnection, node: string): Record<string, unknown> {
  const i = c.info();
  return { name: i.name, user: i.user, node, peer_port: i.peerPort, peer_host: i.peerHost };
}

function publisherRecord(c: ClientConnection, p: StreamPublisherInfo, node: string): Record<string, unknown> {
  return {
    queue: { name: p.stream, vhost: c.vhost },
    connection_details: connectionDetails(c, node),
    publisher_id: p.id,
    reference: p.reference,
    published: p.published,
    confirmed: p.confirmed,
    errored: p.errored,
  };
}

function consumerRecord(c: ClientConnection, s: StreamConsumerInfo, node: string): Record<string, unknown> {
  return {
    queue: { name: s.stream, vhost: c.vhost },
    connection_details: connectionDetails(c, node),
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

export function registerStreamRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  const node = ctx.node;
  const streamConnections = (caller: Caller, vhost: string | null): ClientConnection[] =>
    b.connections.list().filter((c) => c.streamDetails !== undefined && (vhost === null || c.vhost === vhost) && (isMonitor(caller.user) || c.user === caller.user.name));
  const inVhost = (caller: Caller, vhost: string | undefined): ClientConnection[] => {
    if (vhost !== undefined) requireVhost(b, caller, vhost);
    return streamConnections(caller, vhost ?? null);
  };
  const one = (caller: Caller, vhost: string, name: string): ClientConnection => {
    requireVhost(b, caller, vhost);
    const c = b.connections.get(name);
    if (!c || c.streamDetails === undefined || c.vhost !== vhost) throw objectNotFound();
    if (!isMonitor(caller.user) && c.user !== caller.user.name) throw notAuthorisedForObject();
    return c;
  };
  const publishers = (conns: ClientConnection[]) => conns.flatMap((c) => c.streamDetails!().publishers.map((p) => publisherRecord(c, p, node)));
  const consumers = (conns: ClientConnection[]) => conns.flatMap((c) => c.streamDetails!().consumers.map((s) => consumerRecord(c, s, node)));

  resource(app, ctx, "/api/stream/connections", { GET: ({ caller, query }) => listResponse(inVhost(caller, undefined).map((c) => connectionRecord(c.info(), ctx)), query, ["name"]) });
  resource(app, ctx, "/api/stream/connections/:vhost", { GET: ({ caller, params, query }) => listResponse(inVhost(caller, params["vhost"]).map((c) => connectionRecord(c.info(), ctx)), query, ["name"]) });
  resource(app, ctx, "/api/stream/connections/:vhost/:name", {
    GET: ({ caller, params }) => connectionRecord(one(caller, params["vhost"]!, params["name"]!).info(), ctx),
    DELETE: ({ caller, params, raw }) => {
      const c = one(caller, params["vhost"]!, params["name"]!);
      if (!isAdministrator(caller.user) && c.user !== caller.user.name) throw notAuthorisedForObject();
      const reason = raw.headers["x-reason"];
      c.forceClose(typeof reason === "string" ? reason : "Closed via management plugin");
      return noContent();
    },
  });
  resource(app, ctx, "/api/stream/connections/:vhost/:name/publishers", { GET: ({ caller, params }) => publishers([one(caller, params["vhost"]!, params["name"]!)]) });
  resource(app, ctx, "/api/stream/connections/:vhost/:name/consumers", { GET: ({ caller, params }) => consumers([one(caller, params["vhost"]!, params["name"]!)]) });
  resource(app, ctx, "/api/stream/publishers", { GET: ({ caller, query }) => listResponse(publishers(inVhost(caller, undefined)), query, ["reference"]) });
  resource(app, ctx, "/api/stream/publishers/:vhost", { GET: ({ caller, params, query }) => listResponse(publishers(inVhost(caller, params["vhost"])), query, ["reference"]) });
  resource(app, ctx, "/api/stream/publishers/:vhost/:stream", {
    GET: ({ caller, params }) => publishers(inVhost(caller, params["vhost"])).filter((p) => (p["queue"] as { name: string }).name === params["stream"]),
  });
  resource(app, ctx, "/api/stream/consumers", { GET: ({ caller, query }) => listResponse(consumers(inVhost(caller, undefined)), query, []) });
  resource(app, ctx, "/api/stream/consumers/:vhost", { GET: ({ caller, params, query }) => listResponse(consumers(inVhost(caller, params["vhost"])), query, []) });
}
