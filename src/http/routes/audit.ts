/**
 * /api/coney/audit: Coney's audit trail (src/audit), newest first, for administrators only.
 * RabbitMQ's list parameters apply (page, page_size, name, use_regex, sort, sort_reverse,
 * columns: src/http/list-query.ts); exact filters `user`, `action`, `vhost`, `source`, `result`,
 * `object` and a time range `since` / `until` (ms since the epoch or an ISO time) narrow it first.
 * `format=jsonl` exports the matching entries as JSON lines. /api/coney/audit/{id} is one entry.
 */
import type { FastifyInstance } from "fastify";
import type { AuditFilter } from "../../audit/audit-trail.js";
import { requireAdministrator } from "../http-auth.js";
import { badRequest, objectNotFound } from "../http-errors.js";
import { listResponse, type Item } from "../list-query.js";
import { Reply, resource, type RouteContext } from "../route-table.js";

type Query = Record<string, string | undefined>;

function timeOf(query: Query, key: string): number | undefined {
  const raw = query[key];
  if (raw === undefined || raw === "") return undefined;
  const t = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(t)) throw badRequest(`${key}: '${raw}' is neither ms since the epoch nor an ISO time`);
  return t;
}

/** The exact-match filters a query names. */
export function auditFilterOf(query: Query): AuditFilter {
  const f: Record<string, string | number> = {};
  for (const key of ["user", "action", "vhost", "source", "result", "object"] as const) {
    const v = query[key];
    if (v !== undefined && v !== "") f[key] = v;
  }
  const since = timeOf(query, "since");
  const until = timeOf(query, "until");
  if (since !== undefined) f["since"] = since;
  if (until !== undefined) f["until"] = until;
  return f as AuditFilter;
}

export function registerAudit(app: FastifyInstance, ctx: RouteContext): void {
  const trail = ctx.audit;
  resource(app, ctx, "/api/coney/audit", {
    GET: ({ caller, query }) => {
      requireAdministrator(caller);
      const entries = trail?.query(auditFilterOf(query)) ?? [];
      if (query["format"] === "jsonl") {
        const body = entries.map((e) => JSON.stringify(e) + "\n").join("");
        return new Reply(200, body, { "content-type": "application/x-ndjson; charset=utf-8", "content-disposition": 'attachment; filename="coney-audit.jsonl"' });
      }
      if (query["format"] !== undefined && query["format"] !== "json") throw badRequest(`unknown format '${query["format"]}' (json or jsonl)`);
      // Newest first unless a sort is asked for: the trail answers in that order, and an empty
      // default sort keeps it.
      return listResponse(entries as unknown as Item[], query, []);
    },
  });
  resource(app, ctx, "/api/coney/audit/:id", {
    GET: ({ caller, params }) => {
      requireAdministrator(caller);
      const id = Number(params["id"]);
      const e = Number.isInteger(id) ? trail?.query().find((x) => x.id === id) : undefined;
      if (!e) throw objectNotFound();
      return e;
    },
  });
}
