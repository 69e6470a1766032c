/**
 * GET /api/auth: what RabbitMQ 3.10's management UI reads before it draws its login form, and
 * without authentication (rabbit_mgmt_wm_auth has no is_authorized). `enable_uaa` would send the
 * UI to a UAA/OAuth 2.0 login page; Coney has no such page, so the UI always shows its
 * username/password form (bearer tokens still work on the API itself).
 */
import type { FastifyInstance } from "fastify";
import { resource, type RouteContext } from "../route-table.js";

export function registerAuth(app: FastifyInstance, ctx: RouteContext): void {
  resource(app, ctx, "/api/auth", { GET: () => ({ enable_uaa: false, uaa_client_id: "", uaa_location: "" }) }, true);
}
