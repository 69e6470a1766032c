/**
 * GET /api/feature-flags, read by RabbitMQ's management UI (Admin → Feature Flags), and PUT
 * /api/feature-flags/{name}/enable. Coney's flags say which of RabbitMQ 3.10's gated features it
 * has (broker/feature-flags.ts). Any authenticated user may read the list; enabling takes an
 * administrator and answers 204, or 400 with RabbitMQ's reason `unsupported` for a flag that is
 * unknown or whose feature Coney lacks.
 */
import type { FastifyInstance } from "fastify";
import type { FeatureFlag } from "../../broker/index.js";
import { requireAdministrator } from "../http-auth.js";
import { noContent, resource, type RouteContext } from "../route-table.js";

function flagRecord(f: FeatureFlag): Record<string, unknown> {
  return { name: f.name, desc: f.desc, doc_url: f.docUrl, state: f.state, stability: f.stability, provided_by: f.providedBy };
}

export function registerFeatureFlags(app: FastifyInstance, ctx: RouteContext): void {
  const flags = ctx.broker.featureFlags;
  resource(app, ctx, "/api/feature-flags", { GET: () => flags.list().map(flagRecord) });
  resource(app, ctx, "/api/feature-flags/:name/enable", {
    PUT: ({ caller, params }) => {
      requireAdministrator(caller);
      flags.enable(params["name"]!);
      return noContent();
    },
  });
}
