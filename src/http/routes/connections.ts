/**
 * /api/connections, /api/channels, /api/consumers and their per-vhost views. Under `coney
 * --workers N` each list is the whole broker's (whole-records.ts: every worker's records, each
 * with its `node`), paged, sorted and filtered after merging; a connection on another worker is
 * shown and closed through the worker that holds it.
 */
import type { FastifyInstance } from "fastify";
import { isAdministrator, isMonitor } from "../../auth/user.js";
import type { ChannelInfo } from "../../broker/index.js";
import { requireVhost, type Caller } from "../http-auth.js";
import { objectNotFound } from "../http-errors.js";
import { listResponse, type Item } from "../list-query.js";
import { channelRecord, chartContext } from "../records.js";
import { consumerRecord } from "../detail-records.js";
import { noContent, resource, type RouteContext } from "../route-table.js";
import { notAuthorisedForObject } from "../../errors/reasons.js";
import { closeWhole, findConnection, viewOf, wholeRecords } from "../whole-records.js";

const CLOSED_VIA_API = "Closed via management plugin";

export function registerConnections(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  const consumers = (chs: ChannelInfo[]) => chs.flatMap((ch) => ch.consumers.map((c) => consumerRecord(c, ch, ctx.node)));
  /**
   * A vhost's connections and channels: a monitor sees every connection under "All", so it sees
   * a vhost's share too, permissions there or not (the UI's vhost selector narrows, never refuses).
   */
  const vhostView = (c: Caller, vhost: string): void => {
    if (isMonitor(c.user)) {
      if (!b.vhosts.has(vhost)) throw objectNotFound();
    } else requireVhost(b, c, vhost);
  };
  /** A connection record the caller may see (its own, or any for a monitor), wherever it lives. */
  const own = async (c: Caller, name: string, query?: Record<string, string | undefined>): Promise<Item> => {
    const record = await findConnection(ctx, name, query);
    if (record === undefined) throw objectNotFound();
    if (!isMonitor(c.user) && record["user"] !== c.user.name) throw notAuthorisedForObject();
    return record;
  };
  const reasonOf = (header: unknown): string => (typeof header === "string" ? header : CLOSED_VIA_API);

  resource(app, ctx, "/api/connections", { GET: async ({ caller, query }) => listResponse(await wholeRecords(ctx, "connections", viewOf(caller)), query, ["name"]) });
  resource(app, ctx, "/api/connections/:name", {
    GET: ({ caller, params, query }) => own(caller, params["name"]!, query),
    DELETE: async ({ caller, params, raw }) => {
      const record = await own(caller, params["name"]!);
      if (!isAdministrator(caller.user) && record["user"] !== caller.user.name) throw notAuthorisedForObject();
      await closeWhole(ctx, { name: record["name"] as string }, reasonOf(raw.headers["x-reason"]));
      return noContent();
    },
  });
  resource(app, ctx, "/api/connections/username/:username", {
    GET: async ({ caller, params, query }) => {
      const user = params["username"]!;
      if (!isMonitor(caller.user) && user !== caller.user.name) throw notAuthorisedForObject();
      return listResponse((await wholeRecords(ctx, "connections", viewOf(caller))).filter((i) => i["user"] === user), query, ["name"]);
    },
    DELETE: async ({ caller, params, raw }) => {
      const user = params["username"]!;
      if (!isAdministrator(caller.user) && user !== caller.user.name) throw notAuthorisedForObject();
      await closeWhole(ctx, { user }, reasonOf(raw.headers["x-reason"]));
      return noContent();
    },
  });
  resource(app, ctx, "/api/connections/:name/channels", {
    GET: async ({ caller, params }) => {
      const name = (await own(caller, params["name"]!))["name"];
      const local = b.connections.get(name as string);
      if (local !== undefined) return local.info().channels.map((ch) => channelRecord(ch, ctx));
      return (await wholeRecords(ctx, "channels", null)).filter((ch) => (ch["connection_details"] as { name?: unknown } | undefined)?.name === name);
    },
  });
  resource(app, ctx, "/api/channels", { GET: async ({ caller, query }) => listResponse(await wholeRecords(ctx, "channels", viewOf(caller)), query, ["name"]) });
  resource(app, ctx, "/api/channels/:name", {
    GET: async ({ caller, params, query }) => {
      const name = params["name"]!;
      // An unknown channel is 404; another user's is refused unless the caller monitors (RabbitMQ's is_authorized_user).
      const authorise = (user: unknown): void => {
        if (!isMonitor(caller.user) && user !== caller.user.name) throw notAuthorisedForObject();
      };
      const ch = b.connections.list().flatMap((x) => x.info().channels).find((c) => c.name === name);
      if (ch) {
        authorise(ch.user);
        return { ...channelRecord(ch, chartContext(ctx, query)), consumer_details: consumers([ch]), publishes: [], deliveries: [] };
      }
      if (ctx.peers?.records === undefined) throw objectNotFound();
      const record = (await wholeRecords(ctx, "channels", null, query)).find((c) => c["name"] === name);
      if (record === undefined) throw objectNotFound();
      authorise(record["user"]);
      const details = (await wholeRecords(ctx, "consumers", null)).filter((c) => (c["channel_details"] as { name?: unknown } | undefined)?.name === name);
      return { ...record, consumer_details: details, publishes: [], deliveries: [] };
    },
  });
  resource(app, ctx, "/api/consumers", { GET: ({ caller }) => wholeRecords(ctx, "consumers", viewOf(caller)) });
  resource(app, ctx, "/api/consumers/:vhost", {
    GET: async ({ caller, params }) => {
      requireVhost(b, caller, params["vhost"]!);
      return (await wholeRecords(ctx, "consumers", viewOf(caller))).filter((c) => (c["queue"] as { vhost?: unknown }).vhost === params["vhost"]);
    },
  });
  resource(app, ctx, "/api/vhosts/:vhost/connections", {
    // Paged, sorted and filtered as /api/connections (the UI's list asks for pages).
    GET: async ({ caller, params, query }) => {
      vhostView(caller, params["vhost"]!);
      return listResponse((await wholeRecords(ctx, "connections", viewOf(caller))).filter((c) => c["vhost"] === params["vhost"]), query, ["name"]);
    },
  });
  resource(app, ctx, "/api/vhosts/:vhost/channels", {
    GET: async ({ caller, params, query }) => {
      vhostView(caller, params["vhost"]!);
      return listResponse((await wholeRecords(ctx, "channels", viewOf(caller))).filter((c) => c["vhost"] === params["vhost"]), query, ["name"]);
    },
  });
}
