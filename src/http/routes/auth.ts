/**
 * GET /api/auth: what RabbitMQ's management UI reads before it draws its login form, and
 * without authentication (rabbit_mgmt_wm_auth has no is_authorized). With the management UI's
 * OAuth 2.0 login turned on (management.oauth_enabled, or its older name management.enable_uaa)
 * and complete — a client id, the identity provider's URL, and the OAuth resource server
 * (auth_oauth2.resource_server_id) whose tokens the API accepts — it tells the UI to log users in
 * at the provider: both RabbitMQ 3.10's `oauth_*` fields and the older `enable_uaa`/`uaa_*` ones.
 * Otherwise, as RabbitMQ does when settings are missing, OAuth login is reported off and the UI
 * shows its username/password form (bearer tokens still work on the API itself).
 */
import type { FastifyInstance } from "fastify";
import type { ConeyConfig } from "../../config/config.js";
import { resource, type RouteContext } from "../route-table.js";

export function authSettings(c: ConeyConfig): Record<string, unknown> {
  const resourceId = c.oauthResourceServerId ?? "";
  if (!c.managementOauthEnabled || c.managementOauthClientId === "" || c.managementOauthProviderUrl === "" || resourceId === "") {
    return { enable_uaa: false, uaa_client_id: "", uaa_location: "", oauth_enabled: false };
  }
  return {
    enable_uaa: true,
    uaa_client_id: c.managementOauthClientId,
    uaa_location: c.managementOauthProviderUrl,
    oauth_enabled: true,
    oauth_client_id: c.managementOauthClientId,
    oauth_provider_url: c.managementOauthProviderUrl,
    oauth_resource_id: resourceId,
  };
}

export function registerAuth(app: FastifyInstance, ctx: RouteContext): void {
  resource(app, ctx, "/api/auth", { GET: () => authSettings(ctx.config) }, true);
}
