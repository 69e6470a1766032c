/** /api/vhosts: list, one, PUT (an internal creator gets full permissions, as RabbitMQ), DELETE; a vhost's permissions are in users.ts. */
import { actorOf } from "../request-actor.js";
import type { FastifyInstance } from "fastify";
import { parseTags } from "../../auth/user.js";
import { checkNameLength } from "../../broker/index.js";
import { isVisibleVhost, requireAdministrator } from "../http-auth.js";
import { badRequest, objectNotFound } from "../http-errors.js";
import { listResponse } from "../list-query.js";
import { chartContext, vhostRecord } from "../records.js";
import { objectBody, optBool, optString } from "../request-body.js";
import { created, noContent, resource, type RouteContext } from "../route-table.js";

export function registerVhosts(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  resource(app, ctx, "/api/vhosts", {
    GET: ({ caller, query }) =>
      listResponse(
        [...b.vhosts.values()].filter((v) => isVisibleVhost(caller, v.name)).map((v) => vhostRecord(v, ctx)),
        query,
        ["name"],
      ),
  });
  resource(app, ctx, "/api/vhosts/:vhost", {
    GET: ({ caller, params, query }) => {
      requireAdministrator(caller);
      const v = b.vhosts.get(params["vhost"]!);
      if (!v) throw objectNotFound();
      return vhostRecord(v, chartContext(ctx, query));
    },
    PUT: (req) => {
      const { caller, params, body } = req;
      requireAdministrator(caller);
      const name = params["vhost"]!;
      checkNameLength("vhost", name);
      const o = objectBody(body);
      const tags = o["tags"] === undefined ? undefined : parseTags(o["tags"]);
      if (tags === null) throw badRequest("'tags' must be a comma-separated string or an array of strings");
      // Only what the body names changes: a PUT without tags (or description, default queue
      // type, tracing) keeps the current value (issue 17).
      const dqt = o["default_queue_type"] !== undefined ? optString(o, "default_queue_type", "classic") : o["defaultqueuetype"] !== undefined ? optString(o, "defaultqueuetype", "classic") : undefined;
      if (dqt !== undefined && !["classic", "quorum", "stream"].includes(dqt)) throw badRequest(`invalid default_queue_type '${dqt}'`);
      const meta = {
        ...(o["description"] !== undefined ? { description: optString(o, "description", "") } : {}),
        ...(tags ? { tags } : {}),
        ...(dqt !== undefined ? { defaultQueueType: dqt } : {}),
        ...(o["tracing"] !== undefined ? { tracing: optBool(o, "tracing", false) } : {}),
      };
      const isNew = b.putVhost(name, meta, actorOf(req));
      // RabbitMQ grants the creator full permissions on a new vhost; only an internal user can
      // hold a permission record (a token user's rights come from its scopes).
      if (isNew && caller.user.isInternal && b.users.get(caller.user.name)) b.setPermission(caller.user.name, name, { configure: ".*", write: ".*", read: ".*" }, actorOf(req));
      return isNew ? created() : noContent();
    },
    DELETE: (req) => {
      requireAdministrator(req.caller);
      if (!b.vhosts.has(req.params["vhost"]!)) throw objectNotFound();
      b.deleteVhost(req.params["vhost"]!, actorOf(req));
      return noContent();
    },
  });
}
