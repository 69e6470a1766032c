/** /api/policies: listed for anyone who sees the vhost; one policy read, set or deleted by policymakers (RabbitMQ's is_authorized_policies). */
import type { FastifyInstance } from "fastify";
import { requirePolicymaker } from "../http-auth.js";
import type { RouteContext } from "../route-table.js";
import { registerPolicyKind } from "./policy-routes.js";

export function registerPolicies(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  registerPolicyKind(app, ctx, {
    base: "/api/policies",
    of: (v) => v.policies,
    put: (p, actor) => b.putPolicy(p, actor),
    remove: (vhost, name, actor) => b.deletePolicy(vhost, name, actor),
    authorizeOne: requirePolicymaker,
  });
}
