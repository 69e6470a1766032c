/** /api/overview, /api/nodes, /api/whoami, /api/version, /api/cluster-name, /api/extensions. */
import type { FastifyInstance } from "fastify";
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { isMonitor } from "../../auth/user.js";
import { EXCHANGE_TYPES } from "../../broker/exchange/exchange-types.js";
import { VERSION } from "../../amqp/connection/server-properties.js";
import { requireAdministrator, requireMonitor } from "../http-auth.js";
import { badRequest, objectNotFound } from "../http-errors.js";
import { objectBody } from "../request-body.js";
import { CLUSTER_NAME_PARAMETER, clusterNameOf } from "../../broker/runtime-parameters.js";
import { noContent, resource, type RouteContext } from "../route-table.js";
import { overviewChurn, overviewKey, overviewMessageStats, overviewQueueTotals } from "../rate-sources.js";

const exchangeTypes = (): unknown[] =>
  [...EXCHANGE_TYPES].map(([name, t]) => ({ name, description: t.description, enabled: true })).sort((a, b) => a.name.localeCompare(b.name));

/** Open file descriptors of this process (Linux /proc); null where the platform has no such view. */
function fdUsed(): number | null {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return null;
  }
}

function fdTotal(): number | null {
  try {
    const m = /Max open files\s+(\d+)/.exec(readFileSync("/proc/self/limits", "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

export function nodeRecord(ctx: RouteContext): Record<string, unknown> {
  // The figures the alarms last measured (ResourceAlarms polls them).
  const { memUsed, memLimit, memAlarm, diskFree, diskFreeLimit: diskLimit, diskAlarm } = ctx.alarms.figures;
  const sockets = ctx.broker.connections.size;
  return {
    name: ctx.node,
    type: "disc",
    running: true,
    being_drained: false,
    os_pid: String(process.pid),
    uptime: Math.round(process.uptime() * 1000),
    mem_used: memUsed,
    mem_limit: memLimit,
    mem_alarm: memAlarm,
    disk_free: diskFree,
    disk_free_limit: diskLimit,
    disk_free_alarm: diskAlarm,
    fd_used: fdUsed() ?? sockets,
    fd_total: fdTotal() ?? 1024,
    sockets_used: sockets,
    sockets_total: fdTotal() ?? 1024,
    // Node has no Erlang processes. The nearest equivalent is the event loop's active resources
    // (sockets, servers, timers, pending I/O: process.getActiveResourcesInfo()); each socket or
    // file among them holds a descriptor, so the descriptor limit bounds them.
    proc_used: process.getActiveResourcesInfo().length,
    proc_total: fdTotal() ?? 1024,
    processors: availableParallelism(),
    rates_mode: "basic",
    exchange_types: exchangeTypes(),
    partitions: [],
  };
}

export function registerOverview(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  resource(app, ctx, "/api/overview", {
    GET: ({ caller }) => {
      let queues = 0, consumers = 0, exchanges = 0;
      for (const v of b.vhosts.values()) {
        exchanges += v.exchanges.size;
        queues += v.queues.size;
        for (const q of v.queues.values()) consumers += q.consumerCount;
      }
      const conns = b.connections.list();
      const rates = ctx.rates;
      return {
        management_version: VERSION,
        rates_mode: "basic",
        product_name: "Coney",
        product_version: VERSION,
        broker_version: VERSION,
        rabbitmq_version: VERSION,
        erlang_version: `Node.js ${process.version}`,
        erlang_full_version: `Node.js ${process.version} (${process.platform}/${process.arch})`,
        cluster_name: clusterNameOf(b.globalParameters, ctx.config.clusterName),
        node: ctx.node,
        exchange_types: exchangeTypes(),
        message_stats: rates.withRates(overviewKey.messageStats, overviewMessageStats(b)),
        churn_rates: rates.withRates(overviewKey.churn, overviewChurn(b)),
        queue_totals: rates.withRates(overviewKey.queueTotals, overviewQueueTotals(b)),
        object_totals: {
          ...(isMonitor(caller.user) ? { consumers } : {}),
          queues,
          exchanges,
          connections: conns.length,
          channels: conns.reduce((n, c) => n + c.info().channels.length, 0),
        },
        listeners: ctx.listeners.map((l) => ({ node: ctx.node, protocol: l.protocol, ip_address: ctx.config.bind || "::", port: l.port })),
      };
    },
  });
  resource(app, ctx, "/api/nodes", {
    GET: ({ caller }) => {
      requireMonitor(caller);
      return [nodeRecord(ctx)];
    },
  });
  resource(app, ctx, "/api/nodes/:name", {
    GET: ({ caller, params }) => {
      requireMonitor(caller);
      if (params["name"] !== ctx.node) throw objectNotFound();
      return nodeRecord(ctx);
    },
  });
  resource(app, ctx, "/api/whoami", { GET: ({ caller }) => ({ name: caller.user.name, tags: caller.user.tags, is_internal_user: caller.user.isInternal }) });
  resource(app, ctx, "/api/version", { GET: () => VERSION }, true);
  // Renaming keeps the node's name (the config's cluster name names the node too); the new name
  // is the global parameter cluster_name, as in RabbitMQ, so it is persisted and exported.
  resource(app, ctx, "/api/cluster-name", {
    GET: () => ({ name: clusterNameOf(b.globalParameters, ctx.config.clusterName) }),
    PUT: ({ caller, body }) => {
      requireAdministrator(caller);
      const name = objectBody(body)["name"];
      if (name === undefined) throw badRequest("[{key_missing,name}]");
      b.putGlobalParameter(CLUSTER_NAME_PARAMETER, name);
      return noContent();
    },
  });
  resource(app, ctx, "/api/extensions", { GET: () => [] });
}
