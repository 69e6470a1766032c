/**
 * /api/user-limits (RabbitMQ 3.10): each user's `max-connections` and `max-channels`, listed as
 * `{"user", "value": {limit: N}}` for users that have any. Reading and writing both need the
 * administrator tag, as the rest of user administration.
 */
import type { FastifyInstance } from "fastify";
import type { User } from "../../auth/user.js";
import { requireAdministrator } from "../http-auth.js";
import { badRequest, objectNotFound } from "../http-errors.js";
import { objectBody } from "../request-body.js";
import { noContent, resource, type RouteContext } from "../route-table.js";

const record = (u: User): { user: string; value: Record<string, number> } => ({ user: u.name, value: { ...u.limits } as Record<string, number> });
const hasLimits = (u: User): boolean => Object.keys(u.limits).length > 0;

export function registerUserLimits(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  resource(app, ctx, "/api/user-limits", {
    GET: ({ caller }) => {
      requireAdministrator(caller);
      return b.users.list().filter(hasLimits).map(record);
    },
  });
  resource(app, ctx, "/api/user-limits/:user", {
    GET: ({ caller, params }) => {
      requireAdministrator(caller);
      const u = b.users.get(params["user"]!);
      if (!u) throw objectNotFound();
      return hasLimits(u) ? [record(u)] : [];
    },
  });
  resource(app, ctx, "/api/user-limits/:user/:name", {
    PUT: ({ caller, params, body }) => {
      requireAdministrator(caller);
      const o = objectBody(body);
      if (!("value" in o)) throw badRequest("[{key_missing,value}]");
      b.setUserLimit(params["user"]!, params["name"]!, o["value"]);
      return noContent();
    },
    DELETE: ({ caller, params }) => {
      requireAdministrator(caller);
      b.clearUserLimit(params["user"]!, params["name"]!);
      return noContent();
    },
  });
}
