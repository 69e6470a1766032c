/**
 * GET /api/feature-flags, read by RabbitMQ's management UI (Admin → Feature Flags). RabbitMQ's
 * feature flags gate features while a cluster's nodes are upgraded one by one; Coney has no such
 * mechanism, every feature it has is simply on, so the list is empty (the UI shows "no feature
 * flags"). Any authenticated user may read it, as in RabbitMQ.
 */
import type { FastifyInstance } from "fastify";
import { resource, type RouteContext } from "../route-table.js";

export function registerFeatureFlags(app: FastifyInstance, ctx: RouteContext): void {
  resource(app, ctx, "/api/feature-flags", { GET: () => [] });
}
