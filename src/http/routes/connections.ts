/** /api/connections, /api/channels, /api/consumers and their per-vhost views. */
import type { FastifyInstance } from "fastify";
import { isAdministrator, isMonitor } from "../../auth/user.js";
import type { ChannelInfo, ConnectionInfo } from "../../broker/index.js";
import { requireVhost, type Caller } from "../http-auth.js";
import { objectNotFound } from "../http-errors.js";
import { listResponse } from "../list-query.js";
import { channelRecord, chartContext, connectionRecord } from "../records.js";
import { connectionConsumers, consumerRecord } from "../detail-records.js";
import { noContent, resource, type RouteContext } from "../route-table.js";
import { notAuthorisedForObject } from "../../errors/reasons.js";

export function registerConnections(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  /** Monitors and administrators see every connection; other users only their own. */
  const visible = (c: Caller): ConnectionInfo[] =>
    b.connections.list().map((x) => x.info()).filter((i) => isMonitor(c.user) || i.user === c.user.name);
  const channels = (conns: ConnectionInfo[]): ChannelInfo[] => conns.flatMap((c) => c.channels);
  const consumers = (chs: ChannelInfo[]) => chs.flatMap((ch) => ch.consumers.map((c) => consumerRecord(c, ch)));
  /** Every consumer the caller may see: its (or, for a monitor, every) connection's channels' and stream subscriptions. */
  const visibleConsumers = (c: Caller) => connectionConsumers(b.connections.list().filter((x) => isMonitor(c.user) || x.user === c.user.name));
  /**
   * A vhost's connections and channels: a monitor sees every connection under "All", so it sees
   * a vhost's share too, permissions there or not (the UI's vhost selector narrows, never refuses).
   */
  const vhostView = (c: Caller, vhost: string): void => {
    if (isMonitor(c.user)) {
      if (!b.vhosts.has(vhost)) throw objectNotFound();
    } else requireVhost(b, c, vhost);
  };
  const own = (c: Caller, name: string): ConnectionInfo => {
    const conn = b.connections.get(name);
    if (!conn) throw objectNotFound();
    const info = conn.info();
    if (!isMonitor(c.user) && info.user !== c.user.name) throw notAuthorisedForObject();
    return info;
  };

  resource(app, ctx, "/api/connections", { GET: ({ caller, query }) => listResponse(visible(caller).map((c) => connectionRecord(c, ctx)), query, ["name"]) });
  resource(app, ctx, "/api/connections/:name", {
    GET: ({ caller, params, query }) => connectionRecord(own(caller, params["name"]!), chartContext(ctx, query)),
    DELETE: ({ caller, params, raw }) => {
      const info = own(caller, params["name"]!);
      if (!isAdministrator(caller.user) && info.user !== caller.user.name) throw notAuthorisedForObject();
      const reason = raw.headers["x-reason"];
      b.connections.get(info.name)?.forceClose(typeof reason === "string" ? reason : "Closed via management plugin");
      return noContent();
    },
  });
  resource(app, ctx, "/api/connections/username/:username", {
    GET: ({ caller, params, query }) => {
      const user = params["username"]!;
      if (!isMonitor(caller.user) && user !== caller.user.name) throw notAuthorisedForObject();
      return listResponse(visible(caller).filter((i) => i.user === user).map((c) => connectionRecord(c, ctx)), query, ["name"]);
    },
    DELETE: ({ caller, params, raw }) => {
      const user = params["username"]!;
      if (!isAdministrator(caller.user) && user !== caller.user.name) throw notAuthorisedForObject();
      const reason = raw.headers["x-reason"];
      for (const conn of b.connections.ofUser(user)) conn.forceClose(typeof reason === "string" ? reason : "Closed via management plugin");
      return noContent();
    },
  });
  resource(app, ctx, "/api/connections/:name/channels", { GET: ({ caller, params }) => own(caller, params["name"]!).channels.map((ch) => channelRecord(ch, ctx)) });
  resource(app, ctx, "/api/channels", { GET: ({ caller, query }) => listResponse(channels(visible(caller)).map((ch) => channelRecord(ch, ctx)), query, ["name"]) });
  resource(app, ctx, "/api/channels/:name", {
    GET: ({ caller, params, query }) => {
      // An unknown channel is 404; another user's is refused unless the caller monitors (RabbitMQ's is_authorized_user).
      const ch = channels(b.connections.list().map((x) => x.info())).find((c) => c.name === params["name"]);
      if (!ch) throw objectNotFound();
      if (!isMonitor(caller.user) && ch.user !== caller.user.name) throw notAuthorisedForObject();
      return { ...channelRecord(ch, chartContext(ctx, query)), consumer_details: consumers([ch]), publishes: [], deliveries: [] };
    },
  });
  resource(app, ctx, "/api/consumers", { GET: ({ caller }) => visibleConsumers(caller) });
  resource(app, ctx, "/api/consumers/:vhost", {
    GET: ({ caller, params }) => {
      requireVhost(b, caller, params["vhost"]!);
      return visibleConsumers(caller).filter((c) => c.queue.vhost === params["vhost"]);
    },
  });
  resource(app, ctx, "/api/vhosts/:vhost/connections", {
    // Paged, sorted and filtered as /api/connections (the UI's list asks for pages).
    GET: ({ caller, params, query }) => {
      vhostView(caller, params["vhost"]!);
      return listResponse(visible(caller).filter((c) => c.vhost === params["vhost"]).map((c) => connectionRecord(c, ctx)), query, ["name"]);
    },
  });
  resource(app, ctx, "/api/vhosts/:vhost/channels", {
    GET: ({ caller, params, query }) => {
      vhostView(caller, params["vhost"]!);
      return listResponse(channels(visible(caller)).filter((c) => c.vhost === params["vhost"]).map((ch) => channelRecord(ch, ctx)), query, ["name"]);
    },
  });
}
