/** /api/policies: readable by anyone who sees the vhost, changed by policymakers. */
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
    authorizeRead: () => {},
    authorizeWrite: requirePolicymaker,
  });
}
