/**
 * /api/user-limits: per-user max-connections and max-channels (RabbitMQ 3.10). Listing is for
 * administrators (one user's limits also for monitors and the user itself); setting and clearing
 * for administrators. Texts of the refusals are RabbitMQ's.
 */
import { actorOf } from "../request-actor.js";
import type { FastifyInstance } from "fastify";
import type { User, UserLimits } from "../../auth/user.js";
import { isMonitor } from "../../auth/user.js";
import { erlangTerm } from "../../errors/erlang-term.js";
import { requireAdministrator } from "../http-auth.js";
import { badRequest } from "../http-errors.js";
import { objectBody, requireKeys } from "../request-body.js";
import { noContent, resource, type RouteContext } from "../route-table.js";
import { objectNotFound } from "../../errors/reasons.js";

const LIMITS: ReadonlyArray<keyof UserLimits> = ["max-connections", "max-channels"];

const record = (u: User) => ({ user: u.name, value: u.limits });
const hasLimits = (u: User) => Object.keys(u.limits).length > 0;

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
      if (caller.user.name !== params["user"] && !isMonitor(caller.user)) requireAdministrator(caller);
      const u = b.users.get(params["user"]!);
      return u && hasLimits(u) ? [record(u)] : [];
    },
  });
  resource(app, ctx, "/api/user-limits/:user/:name", {
    PUT: (req) => {
      const { caller, params, body } = req;
      requireAdministrator(caller);
      const o = objectBody(body);
      requireKeys(o, ["value"]);
      const name = params["name"]! as keyof UserLimits;
      const value = o["value"];
      if (!LIMITS.includes(name)) throw badRequest(`Unrecognised terms [{<<"${params["name"]}">>,${erlangTerm(value)}}] in user-limits`);
      if (typeof value !== "number" || !Number.isInteger(value)) throw badRequest(`${name} should be a number, actually was ${erlangTerm(value)}`);
      b.setUserLimit(params["user"]!, name, value, actorOf(req));
      return noContent();
    },
    DELETE: (req) => {
      const { caller, params } = req;
      requireAdministrator(caller);
      const name = params["name"]! as keyof UserLimits;
      if (!LIMITS.includes(name)) throw objectNotFound();
      b.setUserLimit(params["user"]!, name, null, actorOf(req));
      return noContent();
    },
  });
}
