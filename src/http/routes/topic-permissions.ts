/**
 * /api/topic-permissions (all, per vhost and user, PUT/DELETE), /api/vhosts/{v}/topic-permissions
 * and /api/users/{u}/topic-permissions: RabbitMQ's topic authorisation records (administrators
 * only). PUT takes {exchange, write, read} and adds or replaces that exchange's record; DELETE
 * clears all of (vhost, user), or one exchange's with /{exchange}.
 */
import { actorOf } from "../request-actor.js";
import type { FastifyInstance } from "fastify";
import type { TopicPermission } from "../../auth/topic-permission.js";
import { requireAdministrator } from "../http-auth.js";
import { objectNotFound } from "../http-errors.js";
import { objectBody, reqString, requireKeys } from "../request-body.js";
import { created, noContent, resource, type RouteContext } from "../route-table.js";

/** RabbitMQ's order: by vhost, user, exchange. */
const sorted = (ps: TopicPermission[]) =>
  ps.sort((a, b) => a.vhost.localeCompare(b.vhost) || a.user.localeCompare(b.user) || (a.exchange < b.exchange ? -1 : a.exchange > b.exchange ? 1 : 0)).map((p) => p.toJSON());

export function registerTopicPermissions(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  resource(app, ctx, "/api/topic-permissions", {
    GET: ({ caller }) => {
      requireAdministrator(caller);
      return sorted(b.users.allTopicPermissions());
    },
  });
  resource(app, ctx, "/api/vhosts/:vhost/topic-permissions", {
    GET: ({ caller, params }) => {
      requireAdministrator(caller);
      if (!b.vhosts.has(params["vhost"]!)) throw objectNotFound();
      return sorted(b.users.topicPermissionsOf({ vhost: params["vhost"]! }));
    },
  });
  resource(app, ctx, "/api/users/:user/topic-permissions", {
    GET: ({ caller, params }) => {
      requireAdministrator(caller);
      if (!b.users.get(params["user"]!)) throw objectNotFound();
      return sorted(b.users.topicPermissionsOf({ user: params["user"]! }));
    },
  });
  resource(app, ctx, "/api/topic-permissions/:vhost/:user", {
    GET: ({ caller, params }) => {
      requireAdministrator(caller);
      const found = b.users.topicPermissionsOf({ vhost: params["vhost"]!, user: params["user"]! });
      if (found.length === 0) throw objectNotFound();
      return sorted(found);
    },
    PUT: (req) => {
      const { caller, params, body } = req;
      requireAdministrator(caller);
      const o = objectBody(body);
      requireKeys(o, ["exchange", "write", "read"]);
      const isNew = b.setTopicPermission(params["user"]!, params["vhost"]!, { exchange: reqString(o, "exchange"), write: reqString(o, "write"), read: reqString(o, "read") }, actorOf(req));
      return isNew ? created() : noContent();
    },
    DELETE: (req) => {
      const { caller, params } = req;
      requireAdministrator(caller);
      b.clearTopicPermissions(params["user"]!, params["vhost"]!, undefined, actorOf(req));
      return noContent();
    },
  });
  resource(app, ctx, "/api/topic-permissions/:vhost/:user/:exchange", {
    GET: ({ caller, params }) => {
      requireAdministrator(caller);
      const p = b.users.topicPermission(params["user"]!, params["vhost"]!, params["exchange"]!);
      if (!p) throw objectNotFound();
      return p.toJSON();
    },
    DELETE: (req) => {
      const { caller, params } = req;
      requireAdministrator(caller);
      b.clearTopicPermissions(params["user"]!, params["vhost"]!, params["exchange"]!, actorOf(req));
      return noContent();
    },
  });
}
