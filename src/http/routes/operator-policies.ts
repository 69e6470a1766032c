/**
 * /api/operator-policies: RabbitMQ's operator policies (limits an operator imposes over user
 * policies). As in RabbitMQ's management plugin, any management user lists those of the vhosts
 * it may see; reading one by name, setting and deleting are for administrators.
 */
import type { FastifyInstance } from "fastify";
import { requireAdministrator } from "../http-auth.js";
import type { RouteContext } from "../route-table.js";
import { registerPolicyKind } from "./policy-routes.js";

export function registerOperatorPolicies(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  registerPolicyKind(app, ctx, {
    base: "/api/operator-policies",
    of: (v) => v.operatorPolicies,
    put: (p, actor) => b.putOperatorPolicy(p, actor),
    remove: (vhost, name, actor) => b.deleteOperatorPolicy(vhost, name, actor),
    authorizeOne: requireAdministrator,
  });
}
