/**
 * DELETE /api/coney/cluster/nodes/{node} — a Coney extension (RabbitMQ forgets a node with
 * `rabbitmqctl forget_cluster_node`, which talks to the node rather than the HTTP API): removes a
 * node that is gone for good from the cluster's known nodes (docs/CLUSTERING.md). Administrators
 * only. A node that is running, or the node answering (the leader), is refused with 400; an
 * unknown one is 404; on a single node there is no cluster to forget from (400).
 */
import type { FastifyInstance } from "fastify";
import { badRequest, objectNotFound } from "../http-errors.js";
import { requireAdministrator } from "../http-auth.js";
import { Reply, resource, type RouteContext } from "../route-table.js";

export function registerClusterNodes(app: FastifyInstance, ctx: RouteContext): void {
  resource(app, ctx, "/api/coney/cluster/nodes/:node", {
    DELETE: async ({ caller, params }) => {
      requireAdministrator(caller);
      const node = params["node"]!;
      if (ctx.cluster === null) throw badRequest(`${ctx.node} is not clustered: there is no node to forget`);
      const outcome = await ctx.cluster.forget(node);
      if (outcome === "unknown") throw objectNotFound();
      if (outcome === "running") throw badRequest(`Node ${node} is running; stop it before forgetting it`);
      if (outcome === "self") throw badRequest(`Node ${node} is the leader answering this request; it cannot forget itself`);
      return new Reply(204);
    },
  });
}
