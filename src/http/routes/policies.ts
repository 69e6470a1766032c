/** /api/policies: list (all, per vhost, sorted by priority), one, PUT (validated), DELETE. */
import type { FastifyInstance } from "fastify";
import type { PolicyRecord } from "../../broker/vhost.js";
import { canSeeVhost, requirePolicymaker, requireVhost } from "../http-auth.js";
import { badRequest, objectNotFound } from "../http-errors.js";
import { listResponse } from "../list-query.js";
import { objectBody, optString, reqString } from "../request-body.js";
import { created, noContent, resource, type RouteContext } from "../route-table.js";

const record = (p: PolicyRecord) => ({ vhost: p.vhost, name: p.name, pattern: p.pattern, "apply-to": p.applyTo, definition: p.definition, priority: p.priority });

export function registerPolicies(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  resource(app, ctx, "/api/policies", {
    GET: ({ caller, query }) => listResponse([...b.vhosts.values()].filter((v) => canSeeVhost(caller, v.name)).flatMap((v) => [...v.policies.values()].map(record)), query, ["priority"]),
  });
  resource(app, ctx, "/api/policies/:vhost", {
    GET: ({ caller, params, query }) => {
      requireVhost(b, caller, params["vhost"]!);
      return listResponse([...b.vhost(params["vhost"]!).policies.values()].map(record), query, ["priority"]);
    },
  });
  resource(app, ctx, "/api/policies/:vhost/:name", {
    GET: ({ caller, params }) => {
      requireVhost(b, caller, params["vhost"]!);
      const p = b.vhost(params["vhost"]!).policies.get(params["name"]!);
      if (!p) throw objectNotFound();
      return record(p);
    },
    PUT: ({ caller, params, body }) => {
      requirePolicymaker(caller);
      requireVhost(b, caller, params["vhost"]!);
      const o = objectBody(body);
      const definition = o["definition"];
      if (definition === undefined) throw badRequest("[{key_missing,definition}]");
      if (definition === null || typeof definition !== "object" || Array.isArray(definition)) throw badRequest("'definition' must be a JSON object");
      const priority = o["priority"] ?? 0;
      if (typeof priority !== "number") throw badRequest("'priority' must be an integer");
      const p: PolicyRecord = {
        vhost: params["vhost"]!,
        name: params["name"]!,
        pattern: reqString(o, "pattern"),
        applyTo: optString(o, "apply-to", "all"),
        definition: definition as Record<string, unknown>,
        priority,
      };
      return b.putPolicy(p) ? created() : noContent();
    },
    DELETE: ({ caller, params }) => {
      requirePolicymaker(caller);
      requireVhost(b, caller, params["vhost"]!);
      b.deletePolicy(params["vhost"]!, params["name"]!);
      return noContent();
    },
  });
}
