/**
 * RabbitMQ's shovel management API (rabbitmq_shovel_management 3.10): GET /api/shovels,
 * /api/shovels/{vhost} and /api/shovels/vhost/{vhost}/{name} (which, as RabbitMQ's, answers its
 * vhost's list, and 404 when that shovel does not exist), DELETE .../{name} deletes the shovel
 * (its parameter) and DELETE .../{name}/restart restarts it. Reading takes the monitor tag (or a
 * user's own vhosts, as RabbitMQ's filter); deleting and restarting take policymaker, as the
 * parameter itself does (RabbitMQ lets a monitor do it: docs/COMPATIBILITY.md).
 */
import type { FastifyInstance } from "fastify";
import { SHOVEL_COMPONENT, type Shovels } from "../../shovel/shovels.js";
import { shovelRecord } from "../../shovel/shovel-record.js";
import { canSeeVhost, requireMonitor, requirePolicymaker, requireVhost } from "../http-auth.js";
import { objectNotFound } from "../http-errors.js";
import { listResponse } from "../list-query.js";
import { actorOf } from "../request-actor.js";
import { noContent, resource, type RouteContext } from "../route-table.js";

export function registerShovels(app: FastifyInstance, ctx: RouteContext, shovels: Shovels): void {
  const b = ctx.broker;
  const records = (vhost?: string) => shovels.list().filter((s) => vhost === undefined || s.vhost === vhost).map((s) => shovelRecord(s, ctx.node));

  resource(app, ctx, "/api/shovels", {
    GET: ({ caller, query }) => {
      requireMonitor(caller);
      return listResponse(records().filter((r) => canSeeVhost(caller, r["vhost"] as string)), query);
    },
  });
  resource(app, ctx, "/api/shovels/:vhost", {
    GET: ({ caller, params, query }) => {
      requireMonitor(caller);
      requireVhost(b, caller, params["vhost"]!);
      return listResponse(records(params["vhost"]!), query);
    },
  });
  const one = (vhost: string, name: string): void => {
    if (!shovels.has(vhost, name)) throw objectNotFound();
  };
  resource(app, ctx, "/api/shovels/vhost/:vhost/:name", {
    GET: ({ caller, params, query }) => {
      requireMonitor(caller);
      requireVhost(b, caller, params["vhost"]!);
      one(params["vhost"]!, params["name"]!);
      return listResponse(records(params["vhost"]!), query);
    },
    DELETE: (req) => {
      const { caller, params } = req;
      requirePolicymaker(caller);
      requireVhost(b, caller, params["vhost"]!);
      one(params["vhost"]!, params["name"]!);
      b.deleteParameter(SHOVEL_COMPONENT, params["vhost"]!, params["name"]!, actorOf(req));
      return noContent();
    },
  });
  resource(app, ctx, "/api/shovels/vhost/:vhost/:name/restart", {
    DELETE: ({ caller, params }) => {
      requirePolicymaker(caller);
      requireVhost(b, caller, params["vhost"]!);
      if (!shovels.restart(params["vhost"]!, params["name"]!)) throw objectNotFound();
      return noContent();
    },
  });
}
