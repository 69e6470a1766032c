/**
 * GET /api/federation-links[/{vhost}] and …/state/down (RabbitMQ's rabbitmq_federation_management):
 * the federation links with their status, for monitors, filtered to the vhosts the caller may
 * see; DELETE /api/federation-links/vhost/{vhost}/{id}/{node}/restart restarts one link. The
 * federation service (src/federation) formats the records; the API sees it through
 * FederationLinks (../federation-view.ts).
 */
import type { FastifyInstance } from "fastify";
import { canSeeVhost, requireMonitor, requireVhost } from "../http-auth.js";
import { noContent, resource, type RouteContext } from "../route-table.js";
import { objectNotFound } from "../../errors/reasons.js";

const isDown = (r: Record<string, unknown>): boolean => r["status"] !== "running" && r["status"] !== "starting";

export function registerFederationLinks(app: FastifyInstance, ctx: RouteContext): void {
  const federation = ctx.federation;
  if (federation === null) return;
  const list = (vhost: string | null, down: boolean) =>
    ({ caller }: { caller: Parameters<typeof requireMonitor>[0] }) => {
      requireMonitor(caller);
      if (vhost !== null) requireVhost(ctx.broker, caller, vhost);
      return federation.records().filter((r) => (vhost === null ? canSeeVhost(caller, r["vhost"] as string) : r["vhost"] === vhost) && (!down || isDown(r)));
    };
  resource(app, ctx, "/api/federation-links", { GET: list(null, false) });
  resource(app, ctx, "/api/federation-links/state/down", { GET: list(null, true) });
  resource(app, ctx, "/api/federation-links/:vhost", { GET: (req) => list(req.params["vhost"]!, false)(req) });
  resource(app, ctx, "/api/federation-links/:vhost/state/down", { GET: (req) => list(req.params["vhost"]!, true)(req) });
  resource(app, ctx, "/api/federation-links/vhost/:vhost/:id/:node/restart", {
    DELETE: ({ caller, params }) => {
      requireMonitor(caller);
      requireVhost(ctx.broker, caller, params["vhost"]!);
      if (params["node"] !== ctx.node || !federation.restart(params["vhost"]!, params["id"]!)) throw objectNotFound();
      return noContent();
    },
  });
}
