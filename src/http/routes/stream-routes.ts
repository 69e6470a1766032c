/**
 * The rabbitmq_stream_management plugin's API: /api/stream/connections[/{vhost}[/{name}]] (the
 * stream-protocol connections, with their publishers and consumers), /api/stream/publishers
 * [/{vhost}[/{stream}]] and /api/stream/consumers[/{vhost}], with the plugin's fields. Stream
 * connections are found in the broker's connection registry (their `streamDetails`), whatever
 * transport serves them. Visibility as /api/connections: monitors see all, others their own.
 */
import type { FastifyInstance } from "fastify";
import { isAdministrator, isMonitor } from "../../auth/user.js";
import type { ClientConnection } from "../../broker/index.js";
import { requireVhost, type Caller } from "../http-auth.js";
import { objectNotFound } from "../http-errors.js";
import { notAuthorisedForObject } from "../../errors/reasons.js";
import { listResponse } from "../list-query.js";
import { connectionRecord } from "../records.js";
import { recordVhost, streamConsumers, streamPublishers, type StreamRecordsKind } from "../stream-records.js";
import { viewOf, wholeRecords } from "../whole-records.js";
import { noContent, resource, type RouteContext } from "../route-table.js";

export function registerStreamRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  const node = ctx.node;
  const one = (caller: Caller, vhost: string, name: string): ClientConnection => {
    requireVhost(b, caller, vhost);
    const c = b.connections.get(name);
    if (!c || c.streamDetails === undefined || c.vhost !== vhost) throw objectNotFound();
    if (!isMonitor(caller.user) && c.user !== caller.user.name) throw notAuthorisedForObject();
    return c;
  };
  const publishers = (conns: ClientConnection[]) => streamPublishers(conns, node);
  const consumers = (conns: ClientConnection[]) => streamConsumers(conns, node);
  /** The whole broker's records of `kind` (every worker's, as /api/connections), in `vhost` when given. */
  const whole = async (caller: Caller, kind: StreamRecordsKind, vhost: string | undefined) => {
    if (vhost !== undefined) requireVhost(b, caller, vhost);
    const all = await wholeRecords(ctx, kind, viewOf(caller));
    return vhost === undefined ? all : all.filter((r) => recordVhost(r) === vhost);
  };

  resource(app, ctx, "/api/stream/connections", { GET: async ({ caller, query }) => listResponse(await whole(caller, "stream-connections", undefined), query, ["name"]) });
  resource(app, ctx, "/api/stream/connections/:vhost", { GET: async ({ caller, params, query }) => listResponse(await whole(caller, "stream-connections", params["vhost"]), query, ["name"]) });
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
  resource(app, ctx, "/api/stream/publishers", { GET: async ({ caller, query }) => listResponse(await whole(caller, "stream-publishers", undefined), query, ["reference"]) });
  resource(app, ctx, "/api/stream/publishers/:vhost", { GET: async ({ caller, params, query }) => listResponse(await whole(caller, "stream-publishers", params["vhost"]), query, ["reference"]) });
  resource(app, ctx, "/api/stream/publishers/:vhost/:stream", {
    GET: async ({ caller, params }) => (await whole(caller, "stream-publishers", params["vhost"])).filter((p) => (p["queue"] as { name: string }).name === params["stream"]),
  });
  resource(app, ctx, "/api/stream/consumers", { GET: async ({ caller, query }) => listResponse(await whole(caller, "stream-consumers", undefined), query, []) });
  resource(app, ctx, "/api/stream/consumers/:vhost", { GET: async ({ caller, params, query }) => listResponse(await whole(caller, "stream-consumers", params["vhost"]), query, []) });
}
