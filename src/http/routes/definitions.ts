/** /api/definitions and /api/definitions/{vhost}: RabbitMQ-format export (GET) and import (POST). */
import { actorOf } from "../request-actor.js";
import type { FastifyInstance } from "fastify";
import { VERSION, exportDefinitions, importDefinitions, type Definitions } from "../../broker/index.js";
import { requireAdministrator } from "../http-auth.js";
import { badRequest } from "../http-errors.js";
import { noContent, resource, type RouteContext } from "../route-table.js";
import { vhostNotFound } from "../../errors/reasons.js";

const PER_VHOST = ["permissions", "parameters", "policies", "queues", "exchanges", "bindings"] as const;

export function registerDefinitions(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  const body = (raw: unknown): Definitions => {
    if (raw === undefined || raw === null || typeof raw !== "object" || Array.isArray(raw)) throw badRequest("failed_to_parse_json: definitions must be a JSON object");
    return raw as Definitions;
  };
  resource(app, ctx, "/api/definitions", {
    GET: ({ caller }) => {
      requireAdministrator(caller);
      return exportDefinitions(b, { version: VERSION });
    },
    POST: (req) => {
      requireAdministrator(req.caller);
      importDefinitions(b, body(req.body), undefined, actorOf(req));
      return noContent();
    },
  });
  resource(app, ctx, "/api/definitions/:vhost", {
    GET: ({ caller, params }) => {
      requireAdministrator(caller);
      const vhost = params["vhost"]!;
      const v = b.vhosts.get(vhost);
      // RabbitMQ 3.10's answers for a missing vhost: 400 on export, 404 not_found on import.
      if (!v) throw badRequest("vhost_not_found");
      const all = exportDefinitions(b, { version: VERSION }) as Record<string, unknown>;
      const single: Record<string, unknown> = {
        rabbit_version: VERSION,
        rabbitmq_version: VERSION,
        product_name: "Coney",
        product_version: VERSION,
        rabbitmq_definition_format: "single_virtual_host",
        original_vhost_name: vhost,
        explanation: `Definitions of virtual host '${vhost}'`,
        metadata: { description: v.metadata.description, tags: v.metadata.tags, default_queue_type: v.metadata.defaultQueueType },
        description: v.metadata.description,
        limits: {},
      };
      for (const key of PER_VHOST) {
        // RabbitMQ keeps `vhost` in the policies of a single-vhost export, and strips it elsewhere.
        const kept = (all[key] as Array<Record<string, unknown>>).filter((i) => i["vhost"] === vhost);
        single[key] = key === "policies" ? kept : kept.map(({ vhost: _v, ...rest }) => rest);
      }
      return single;
    },
    POST: (req) => {
      requireAdministrator(req.caller);
      if (!b.vhosts.has(req.params["vhost"]!)) throw vhostNotFound();
      importDefinitions(b, body(req.body), req.params["vhost"]!, actorOf(req));
      return noContent();
    },
  });
}
