/** /api/overview (what it counts for whom: overview-scope.ts), /api/nodes, /api/whoami, /api/version, /api/cluster-name, /api/extensions. */
import { actorOf } from "../request-actor.js";
import { type ClusterMember, VERSION, CLUSTER_NAME_PARAMETER, clusterNameOf } from "../../broker/index.js";
import type { FastifyInstance } from "fastify";
import { isMonitor } from "../../auth/user.js";
import { requireAdministrator, requireMonitor } from "../http-auth.js";
import { badRequest, objectNotFound } from "../http-errors.js";
import { objectBody } from "../request-body.js";
import { noContent, resource, type RouteContext } from "../route-table.js";
import { chartContext } from "../records.js";
import { DEFAULT_RETENTION } from "../sample-history.js";
import { wholeOverview } from "../whole-records.js";
import type { PeerNode } from "../peer-nodes.js";
import { exchangeTypes, memoryBreakdown, nodeFacts, nodeRecord, webContexts, contextsOf, versionApplications, type NodeFacts } from "../node-record.js";

/** A cluster member: this node's full record, or what is known of another one (docs/CLUSTERING.md). */
function clusterNodeRecord(ctx: RouteContext, facts: NodeFacts, m: ClusterMember): Record<string, unknown> {
  const role = { running: m.running, cluster_leader: m.leader, in_sync: m.inSync };
  // Another node's version as it registered it (a follower runs no API figures this node could ask).
  const version = m.version ? { applications: versionApplications(m.version) } : {};
  return m.name === ctx.node ? { ...nodeRecord(ctx, facts), ...role } : { name: m.name, type: "disc", being_drained: false, partitions: [], ...version, ...role };
}

/** A worker of `coney --workers N`: this one's full record, or what the other one answered (its own process's figures). */
function peerNodeRecord(ctx: RouteContext, facts: NodeFacts, p: PeerNode): Record<string, unknown> {
  if (p.name === ctx.node) return { ...nodeRecord(ctx, facts), ...p.record };
  // Its web contexts from its own listeners and address (RabbitMQ's record of every node has them).
  const contexts = p.listeners.length === 0 ? {} : { contexts: contextsOf(p.listeners, ctx.config.bind) };
  return { name: p.name, type: "disc", being_drained: false, partitions: [], ...p.record, ...contexts, running: p.running };
}

export function registerOverview(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  const facts = nodeFacts(ctx.config);
  resource(app, ctx, "/api/overview", {
    GET: async ({ caller, query }) => {
      // Under `coney --workers N`, summed over the workers (whole-records.ts; docs/CLUSTERING.md).
      const figures = await wholeOverview(ctx, caller, query);
      const overview: Record<string, unknown> = {
        management_version: VERSION,
        rates_mode: "basic",
        // The chart ranges the kept history covers (sample-history.ts); RabbitMQ's UI offers these.
        sample_retention_policies: offeredRanges(ctx.config),
        product_name: "Coney",
        product_version: VERSION,
        broker_version: VERSION,
        rabbitmq_version: VERSION,
        erlang_version: `Node.js ${process.version}`,
        erlang_full_version: `Node.js ${process.version} (${process.platform}/${process.arch})`,
        cluster_name: clusterNameOf(b.globalParameters, ctx.config.clusterName),
        // Every figure is read live when the request is served: there is no statistics database
        // with a backlog of events, and statistics are never turned off.
        disable_stats: false,
        enable_queue_totals: false,
        statistics_db_event_queue: 0,
        exchange_types: exchangeTypes(),
        message_stats: figures.message_stats,
        churn_rates: figures.churn_rates,
        queue_totals: figures.queue_totals,
        object_totals: figures.object_totals,
      };
      // Coney's own fields: a node that did not answer in time has its queues counted from their
      // last known counts (silent-leaders.ts), as a queue's record says `counts_stale`.
      if (figures.counts_stale_nodes !== undefined) {
        overview["counts_stale"] = true;
        overview["counts_stale_nodes"] = figures.counts_stale_nodes;
      }
      // The node, its listeners and web contexts are shown to monitors only (RabbitMQ's overview).
      if (isMonitor(caller.user)) {
        overview["node"] = ctx.node;
        const all = ctx.listeners();
        overview["listeners"] = all.filter((l) => l.up).map((l) => ({ node: ctx.node, protocol: l.protocol, ip_address: ctx.config.bind || "::", port: l.port }));
        const contexts = webContexts(ctx).map((c) => ({ ...c, node: ctx.node }));
        // `coney --workers N`, a spread cluster: every node's listeners and web contexts, as RabbitMQ lists every node's.
        if (ctx.peers) {
          for (const peer of await ctx.peers.list()) {
            if (peer.name === ctx.node) continue;
            for (const l of peer.listeners) (overview["listeners"] as unknown[]).push({ node: peer.name, protocol: l.protocol, ip_address: l.ip ?? (ctx.config.bind || "::"), port: l.port });
            for (const c of contextsOf(peer.listeners, ctx.config.bind)) contexts.push({ ...c, node: peer.name });
          }
        }
        // A Coney extension: configured listeners that could not bind (the port is taken…) and
        // are being retried (src/listeners). RabbitMQ's list has only the active ones, so the UI
        // would otherwise show a missing port with no word of why.
        overview["listeners_unbound"] = all.filter((l) => !l.up).map((l) => ({ node: ctx.node, protocol: l.protocol, ip_address: ctx.config.bind || "::", port: l.port, reason: l.reason }));
        overview["contexts"] = contexts;
      }
      return overview;
    },
  });
  resource(app, ctx, "/api/nodes", {
    GET: async ({ caller }) => {
      requireMonitor(caller);
      if (ctx.peers) return (await ctx.peers.list()).map((p) => peerNodeRecord(ctx, facts, p));
      return ctx.cluster ? ctx.cluster.members().map((m) => clusterNodeRecord(ctx, facts, m)) : [nodeRecord(ctx, facts)];
    },
  });
  resource(app, ctx, "/api/nodes/:name", {
    GET: async ({ caller, params, query }) => {
      requireMonitor(caller);
      if (ctx.peers && params["name"] !== ctx.node) {
        const peer = (await ctx.peers.list()).find((p) => p.name === params["name"]);
        if (peer) return peerNodeRecord(ctx, facts, peer);
        throw objectNotFound();
      }
      const member = ctx.cluster?.members().find((m) => m.name === params["name"]);
      if (params["name"] !== ctx.node) {
        if (member) return clusterNodeRecord(ctx, facts, member);
        throw objectNotFound();
      }
      const r = nodeRecord(chartContext(ctx, query), facts);
      if (member) Object.assign(r, { running: member.running, cluster_leader: member.leader, in_sync: member.inSync });
      if (query["memory"] === "true") r["memory"] = memoryBreakdown();
      // Which process holds which Buffer is not something V8 tells: RabbitMQ's own answer for a
      // breakdown it cannot make, which its UI shows as such.
      if (query["binary"] === "true") r["binary"] = "not_available";
      return r;
    },
  });
  // login_session_timeout (minutes) only when configured, as RabbitMQ; the web UI applies it.
  const timeout = ctx.config.loginSessionTimeout;
  resource(app, ctx, "/api/whoami", {
    GET: ({ caller }) => ({ name: caller.user.name, tags: caller.user.tags, is_internal_user: caller.user.isInternal, ...(timeout !== null ? { login_session_timeout: timeout } : {}) }),
  });
  resource(app, ctx, "/api/version", { GET: () => VERSION }, true);
  // Renaming keeps the node's name (the config's cluster name names the node too); the new name
  // is the global parameter cluster_name, as in RabbitMQ, so it is persisted and exported.
  resource(app, ctx, "/api/cluster-name", {
    GET: () => ({ name: clusterNameOf(b.globalParameters, ctx.config.clusterName) }),
    PUT: (req) => {
      const { caller, body } = req;
      requireAdministrator(caller);
      const name = objectBody(body)["name"];
      if (name === undefined) throw badRequest("[{key_missing,name}]");
      b.putGlobalParameter(CLUSTER_NAME_PARAMETER, name, actorOf(req));
      return noContent();
    },
  });
  // RabbitMQ's management UI loads its own page routes (js/dispatcher.js) as the first of these
  // extensions, and starts only once every listed script has registered: without it the UI logs
  // in and draws nothing. Coney has no UI plugins besides.
  resource(app, ctx, "/api/extensions", { GET: () => [{ javascript: "dispatcher.js" }] });
}

/** The UI's chart ranges (s): last minute, 10 minutes, hour, 8 hours, day. */
const UI_RANGES = [60, 600, 3600, 28800, 86400];

/**
 * RabbitMQ's overview names, per policy, the chart ranges its levels cover: for each level the
 * longest UI range within its age (so the defaults give global [600, 3600, 28800, 86400] and
 * basic [600, 3600], as RabbitMQ 3.10 does). Coney keeps no "detailed" (per-pair) history.
 */
function offeredRanges(config: RouteContext["config"]): Record<"global" | "basic" | "detailed", number[]> {
  const ranges = (levels: readonly { ageSeconds: number }[]): number[] => [
    ...new Set(levels.map((l) => UI_RANGES.filter((r) => r <= l.ageSeconds).pop()).filter((r): r is number => r !== undefined)),
  ];
  return {
    global: ranges(config.sampleRetention.global ?? DEFAULT_RETENTION.global),
    basic: ranges(config.sampleRetention.basic ?? DEFAULT_RETENTION.basic),
    detailed: [],
  };
}
