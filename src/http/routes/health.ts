/**
 * Health checks, as RabbitMQ's: 200 {"status":"ok"} or 503 {"status":"failed","reason":…};
 * bad path parameters are 400. Alarms come from the broker's ResourceAlarms; certificate expiry
 * is read from the TLS listeners' certificate files.
 */
import type { FastifyInstance } from "fastify";
import { badRequest } from "../http-errors.js";
import { createMessage, getAsync, type Queue } from "../../broker/index.js";
import { requireVhost } from "../http-auth.js";
import { EXPIRY_UNITS_DAYS, expiringWithin } from "../../tls/certificate-expiry.js";
import { listenerProtocol } from "../protocol-aliases.js";
import { Reply, resource, type RouteContext } from "../route-table.js";

const failed = (body: Record<string, unknown>): Reply => new Reply(503, { status: "failed", ...body });

export function registerHealth(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  // As RabbitMQ: declare the queue aliveness-test, publish to it through the default exchange and
  // get the message back, all as the calling user, so its permissions decide (403 per the spec).
  const scratch: Queue[] = [];
  resource(app, ctx, "/api/aliveness-test/:vhost", {
    GET: async ({ caller, params }) => {
      const vhost = params["vhost"]!;
      requireVhost(b, caller, vhost);
      const name = "aliveness-test";
      b.declareQueue(caller.ctx, vhost, { name, durable: false, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
      const v = b.vhost(vhost);
      const x = b.exchangeForPublish(caller.ctx, v, "", name);
      b.publish(v, x, createMessage("", name, {}, null, Buffer.from("test_message"), Date.now()), scratch);
      const q = b.queueForRead(caller.ctx, vhost, name);
      // Led by another worker, the get follows the publish on the same link to its leader (FIFO).
      const e = await getAsync(q, true);
      if (!e) return failed({ reason: "aliveness-test message was not routed back" });
      return { status: "ok" };
    },
  });
  const alarms = (reason: string) => () => {
    const { memAlarm, diskAlarm } = ctx.alarms.figures;
    const active = [...(memAlarm ? ["memory"] : []), ...(diskAlarm ? ["disk"] : [])];
    if (active.length === 0) return { status: "ok" };
    return failed({ reason, alarms: active.map((resource) => ({ node: ctx.node, resource })) });
  };
  resource(app, ctx, "/api/health/checks/alarms", { GET: alarms("There are alarms in effect in the cluster") });
  resource(app, ctx, "/api/health/checks/local-alarms", { GET: alarms("There are alarms in effect on the node") });
  const certificates = (withinMs: number) => {
    const expired = expiringWithin(ctx.certificates, withinMs, Date.now()).map((c) => ({ node: ctx.node, ...c }));
    return expired.length === 0 ? { status: "ok" } : failed({ reason: "Certificates expiring", expired });
  };
  resource(app, ctx, "/api/health/checks/certificate-expiration/:within/:unit", {
    GET: ({ params }) => {
      const within = Number(params["within"]);
      if (!Number.isInteger(within) || within < 0) throw badRequest("Invalid expiration value.");
      const days = EXPIRY_UNITS_DAYS[params["unit"]!.toLowerCase()];
      if (days === undefined) throw badRequest("Time unit not recognised. Supported units: days, weeks, months, years.");
      return certificates(within * days * 86_400_000);
    },
  });
  // The spec names the path without a window; rabbitmq-diagnostics' default window is 4 weeks.
  resource(app, ctx, "/api/health/checks/certificate-expiration", { GET: () => certificates(28 * 86_400_000) });
  resource(app, ctx, "/api/health/checks/virtual-hosts", { GET: () => ({ status: "ok" }) });
  // In a cluster (docs/CLUSTERING.md) this node answers as the leader: stopping it is safe while a
  // follower in sync can take over; a follower answers both checks itself (cluster/local-health.ts).
  resource(app, ctx, "/api/health/checks/node-is-quorum-critical", {
    GET: () => {
      const cluster = ctx.cluster;
      if (cluster === null) return { status: "ok", reason: "single node cluster" };
      if (cluster.members().some((m) => m.inSync && !m.leader)) return { status: "ok" };
      const queues = [...b.vhosts.values()].flatMap((v) => [...v.queues.values()].filter((q) => q.durable).map((q) => ({ name: q.name, virtual_host: v.name, type: "classic" })));
      return failed({ reason: `No follower is in sync: stopping the leader ${ctx.node} would leave no node to take over with every confirmed message`, queues });
    },
  });
  // Which node leads: the one whose broker answers (a follower answers 503 itself, cluster/local-health.ts).
  resource(app, ctx, "/api/health/checks/cluster-leader", { GET: () => ({ status: "ok" }) });
  resource(app, ctx, "/api/health/checks/node-is-mirror-sync-critical", { GET: () => ({ status: "ok", reason: "single node cluster" }) });
  // The deprecated node health check: this node answers, so it is up.
  resource(app, ctx, "/api/healthchecks/node", { GET: () => ({ status: "ok" }) });
  // Any node of the broker answers for another as RabbitMQ's does (it asks that node): a running
  // worker of `--workers N` or member of a cluster is ok, as this node's /api/nodes shows it.
  resource(app, ctx, "/api/healthchecks/node/:node", {
    GET: async ({ params }) => {
      const name = params["node"]!;
      const running = name === ctx.node || (ctx.peers ? (await ctx.peers.list()).some((p) => p.name === name && p.running) : (ctx.cluster?.members().some((m) => m.name === name && m.running) ?? false));
      return running ? { status: "ok" } : failed({ reason: `node ${name} is not reachable` });
    },
  });
  resource(app, ctx, "/api/health/checks/port-listener/:port", {
    GET: ({ params }) => {
      const port = Number(params["port"]);
      if (!Number.isInteger(port)) throw badRequest("Invalid port");
      const all = ctx.listeners();
      const ports = all.filter((l) => l.up).map((l) => l.port);
      if (ports.includes(port)) return { status: "ok", port };
      // A configured listener that cannot bind says why (src/listeners); RabbitMQ's shape otherwise.
      const down = all.find((l) => !l.up && l.port === port);
      return failed({ reason: down ? `No active listener: ${down.protocol} cannot listen on ${port} (${down.reason})` : "No active listener", missing: port, ports });
    },
  });
  resource(app, ctx, "/api/health/checks/protocol-listener/:protocol", {
    GET: ({ params }) => {
      // RabbitMQ 3.10's shape: one protocol per request, named back normalised; on failure the
      // missing one as a string and every active listener protocol.
      const wanted = listenerProtocol(params["protocol"]!);
      const all = ctx.listeners();
      const active = [...new Set(all.filter((l) => l.up).map((l) => l.protocol))];
      if (active.includes(wanted)) return { status: "ok", protocol: wanted };
      const down = all.find((l) => !l.up && l.protocol === wanted);
      return failed({ reason: down ? `No active listener: ${wanted} cannot listen on ${down.port} (${down.reason})` : "No active listener", missing: wanted, protocols: active });
    },
  });
}
