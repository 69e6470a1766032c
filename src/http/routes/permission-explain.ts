/**
 * GET /api/coney/explain-permission — a Coney extension (RabbitMQ has no such endpoint; the
 * `/api/coney/` prefix keeps Coney's own endpoints clear of RabbitMQ's namespace). Query:
 * `user` (default: the caller), `vhost`, `permission` (configure | write | read), `resource`
 * (queue | exchange, default queue; it only shapes the refusal text), `name` (may be empty: the
 * default exchange), and optionally `routing_key` (with an exchange and write or read: the
 * routing or binding key, checked against topic permissions on a topic exchange) with `client_id`
 * (an MQTT client's id, for `{client_id}` in those permissions). Answers which check of the order authentication → vhost access → pattern
 * (or scope, for an OAuth 2.0 login) decided, from the broker's own PermissionChecker.
 *
 * Who may ask: administrators about any user; any management user about themself (a user may
 * already learn its own rights by trying; this says why). A token user asking about itself is
 * answered from its token's scopes; token users are not in the user database, so nobody else can
 * ask about them.
 *
 * For an administrator (the audit trail is theirs to read), a verdict decided by vhost access or
 * a pattern names in `granted_by` the audit entry that set that permission: the latest successful
 * permission.set of the user in the vhost (null when the trail holds none, e.g. it aged out).
 */
import type { FastifyInstance } from "fastify";
import { explainForUser, explainWithChecker, type ExplainQuery, type ExplainSettings, type ResourceKind } from "../../auth/permission-explain.js";
import type { PermissionKind } from "../../auth/permission.js";
import { isAdministrator } from "../../auth/user.js";
import { badRequest } from "../http-errors.js";
import { resource, type Request, type RouteContext } from "../route-table.js";
import { notAdministrator } from "../../errors/reasons.js";

const PERMISSIONS: readonly PermissionKind[] = ["configure", "write", "read"];
const RESOURCES: readonly ResourceKind[] = ["queue", "exchange"];

function oneOf<T extends string>(query: Request["query"], key: string, allowed: readonly T[], fallback?: T): T {
  const v = query[key] ?? fallback;
  if (v === undefined) throw badRequest(`[{key_missing,${key}}]`);
  if (!(allowed as readonly string[]).includes(v)) throw badRequest(`'${key}' must be one of ${allowed.join(", ")}, got '${v}'`);
  return v as T;
}

function required(query: Request["query"], key: string): string {
  const v = query[key];
  if (v === undefined) throw badRequest(`[{key_missing,${key}}]`);
  return v;
}

export function registerPermissionExplain(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  const settings: ExplainSettings = {
    vhostExists: (v) => b.vhosts.has(v),
    loopbackUsers: ctx.config.loopbackUsers,
    exchangeType: (v, name) => b.vhosts.get(v)?.exchanges.get(name)?.type,
  };
  resource(app, ctx, "/api/coney/explain-permission", {
    GET: ({ caller, query }) => {
      const q: ExplainQuery = {
        user: query["user"] ?? caller.user.name,
        vhost: required(query, "vhost"),
        permission: oneOf(query, "permission", PERMISSIONS),
        resource: oneOf(query, "resource", RESOURCES, "queue"),
        name: required(query, "name"),
        ...(query["routing_key"] !== undefined ? { routing_key: query["routing_key"] } : {}),
        ...(query["client_id"] !== undefined ? { client_id: query["client_id"] } : {}),
      };
      const self = q.user === caller.user.name;
      if (self && !caller.user.isInternal) {
        const auth = { check: "authentication" as const, passed: true, reason: `User '${q.user}' is logged in with an OAuth 2.0 token; its scopes decide.` };
        return explainWithChecker(caller.permissions, settings, q, auth);
      }
      if (!self && !isAdministrator(caller.user)) throw notAdministrator();
      const answer = explainForUser(b.users, settings, q);
      if (!isAdministrator(caller.user) || ctx.audit === null || (answer.decided_by !== "pattern" && answer.decided_by !== "vhost_access")) return answer;
      const grant = ctx.audit.latest({ action: "permission.set", vhost: q.vhost, object: q.user, result: "ok" });
      return { ...answer, granted_by: grant && { id: grant.id, at: grant.at, user: grant.user, source: grant.source, after: grant.after } };
    },
  });
}
