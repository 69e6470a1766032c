/**
 * RabbitMQ's node-level operations that a single Coney node answers truthfully: login attempt
 * counts per protocol, queue
 * rebalancing (one node: nothing to move; `coney --workers N`: the queue groups evened out over
 * the workers, answered once done, src/workers), starting a vhost on a node (vhosts are always
 * running on this node), and queue actions (sync / cancel_sync concern mirrors, which a single
 * node has none of). Administrators only, as in RabbitMQ.
 */
import type { FastifyInstance } from "fastify";
import { badRequestTerm, BrokerError } from "../../errors/broker-error.js";
import { requireAdministrator, requireMonitor } from "../http-auth.js";
import { badRequest, objectNotFound } from "../http-errors.js";
import { objectBody, requireKeys } from "../request-body.js";
import { noContent, resource, type RouteContext } from "../route-table.js";

export function registerNodeOperations(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  const ownNode = (node: string) => {
    if (node !== ctx.node) throw objectNotFound();
  };
  resource(app, ctx, "/api/auth/attempts/:node", {
    GET: ({ caller, params }) => {
      requireMonitor(caller);
      ownNode(params["node"]!);
      return b.authAttempts.list();
    },
    DELETE: ({ caller, params }) => {
      requireAdministrator(caller);
      ownNode(params["node"]!);
      b.authAttempts.reset();
      return noContent();
    },
  });
  resource(app, ctx, "/api/auth/attempts/:node/source", {
    // Per-source tracking is off, as RabbitMQ's default: nothing is kept per source.
    GET: ({ caller, params }) => {
      requireMonitor(caller);
      ownNode(params["node"]!);
      return [];
    },
    DELETE: ({ caller, params }) => {
      requireAdministrator(caller);
      ownNode(params["node"]!);
      return noContent();
    },
  });
  resource(app, ctx, "/api/rebalance/queues", {
    POST: async ({ caller }) => {
      requireAdministrator(caller);
      await ctx.peers?.rebalance?.();
      return noContent();
    },
  });
  resource(app, ctx, "/api/vhosts/:vhost/start/:node", {
    POST: ({ caller, params }) => {
      requireAdministrator(caller);
      if (!b.vhosts.has(params["vhost"]!)) throw objectNotFound();
      if (params["node"] !== ctx.node) throw badRequest(`Request to node ${params["node"]} failed with nodedown`);
      return noContent();
    },
  });
  resource(app, ctx, "/api/queues/:vhost/:name/actions", {
    POST: ({ caller, params, body }) => {
      requireAdministrator(caller);
      const o = objectBody(body);
      requireKeys(o, ["action"]);
      if (!b.vhosts.has(params["vhost"]!) || !b.vhost(params["vhost"]!).queues.has(params["name"]!)) throw objectNotFound();
      const action = o["action"];
      if (action !== "sync" && action !== "cancel_sync") throw badRequestTerm("unknown", action);
      if (typeof action !== "string") throw new BrokerError("badRequest", "'action' must be a string");
      return noContent();
    },
  });
}
