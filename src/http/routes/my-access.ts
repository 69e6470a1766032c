/**
 * GET /api/coney/my-access — a Coney extension (RabbitMQ has no such endpoint; the `/api/coney/`
 * prefix keeps it clear of RabbitMQ's namespace) for the web UI: what the caller itself may do,
 * so the UI offers only actions that would succeed. The decisions are the broker's own
 * PermissionChecker's, the one every AMQP and HTTP operation is enforced with; the browser never
 * evaluates a pattern itself (they are RE2 expressions, not JavaScript ones).
 *
 * Every management user may ask, about itself only (it could learn the same by trying; RabbitMQ's
 * /api/users/{user}/permissions stays administrator-only). The answer:
 * - `vhosts`: each vhost the caller holds a permission in, with its configure/write/read patterns
 *   (null for an OAuth 2.0 login: its token's scopes decide) and, per kind, whether the pattern
 *   could allow any named resource at all (`may`: false for RabbitMQ's "nothing" patterns "" and
 *   "^$", which match only the default exchange's empty name);
 * - `topic_permissions`: its topic permissions (internal users);
 * - with `?vhost=V`, `checks`: configure, write and read decided for each `queue=` and
 *   `exchange=` name given (each parameter may be repeated; an empty exchange name is the default
 *   exchange).
 */
import type { FastifyInstance } from "fastify";
import type { PermissionChecker } from "../../auth/permission-check.js";
import type { PermissionKind } from "../../auth/permission.js";
import type { Broker } from "../../broker/index.js";
import type { Caller } from "../http-auth.js";
import { badRequest, objectNotFound } from "../http-errors.js";
import { resource, type RouteContext } from "../route-table.js";

const KINDS: readonly PermissionKind[] = ["configure", "write", "read"];
/** RabbitMQ's patterns that allow nothing but the empty name (the default exchange). */
const NOTHING = new Set(["", "^$"]);
/** A page checks its own objects, not the broker's: a bound on names per request. */
const MAX_NAMES = 200;

type Decisions = Record<PermissionKind, boolean>;

function vhostsOf(b: Broker, caller: Caller): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const name of [...b.vhosts.keys()].sort()) {
    if (!caller.permissions.hasVhostAccess(name)) continue;
    const p = caller.user.isInternal ? b.users.permission(caller.user.name, name) : undefined;
    if (p) {
      const may = Object.fromEntries(KINDS.map((k) => [k, !NOTHING.has(p[k])])) as Decisions;
      out.push({ name, configure: p.configure, write: p.write, read: p.read, may });
    } else {
      // A token login: its scopes decide per name; nothing here says a kind is impossible.
      out.push({ name, configure: null, write: null, read: null, may: { configure: true, write: true, read: true } });
    }
  }
  return out;
}

function namesOf(value: unknown): string[] {
  if (value === undefined) return [];
  const names = Array.isArray(value) ? value.map(String) : [String(value)];
  if (names.length > MAX_NAMES) throw badRequest(`at most ${MAX_NAMES} names per request`);
  return names;
}

function decide(checker: PermissionChecker, vhost: string, name: string): { name: string } & Decisions {
  return { name, configure: checker.allows(vhost, "configure", name), write: checker.allows(vhost, "write", name), read: checker.allows(vhost, "read", name) };
}

export function registerMyAccess(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  resource(app, ctx, "/api/coney/my-access", {
    GET: ({ caller, raw }) => {
      const q = raw.query as Record<string, unknown>;
      const answer: Record<string, unknown> = {
        user: caller.user.name,
        tags: caller.user.tags,
        vhosts: vhostsOf(b, caller),
        topic_permissions: caller.user.isInternal ? b.users.topicPermissionsOf({ user: caller.user.name }).map((t) => t.toJSON()) : [],
      };
      const vhost = q["vhost"];
      if (vhost === undefined) return answer;
      if (typeof vhost !== "string") throw badRequest("'vhost' must be given once");
      if (!b.vhosts.has(vhost)) throw objectNotFound();
      answer["checks"] = {
        vhost,
        queues: namesOf(q["queue"]).map((n) => decide(caller.permissions, vhost, n)),
        exchanges: namesOf(q["exchange"]).map((n) => decide(caller.permissions, vhost, n)),
      };
      return answer;
    },
  });
}
