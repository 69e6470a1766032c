/**
 * The routes of one kind of policy, shared by /api/policies and /api/operator-policies: list
 * (all, per vhost, sorted by priority), one, PUT (validated by the broker), DELETE.
 */
import { actorOf } from "../request-actor.js";
import type { Actor } from "../../broker/index.js";
import type { FastifyInstance } from "fastify";
import type { PolicyRecord, VHost } from "../../broker/index.js";
import type { Caller } from "../http-auth.js";
import { canSeeVhost, requireVhost } from "../http-auth.js";
import { badRequest, objectNotFound } from "../http-errors.js";
import { listResponse } from "../list-query.js";
import { objectBody, optString, reqString } from "../request-body.js";
import { created, noContent, resource, type RouteContext } from "../route-table.js";

export interface PolicyKind {
  readonly base: string;
  readonly of: (v: VHost) => ReadonlyMap<string, PolicyRecord>;
  /** Returns true when created. */
  readonly put: (p: PolicyRecord, actor: Actor) => boolean;
  readonly remove: (vhost: string, name: string, actor: Actor) => void;
  /**
   * Reading, changing or deleting one policy. The lists are open to every management user for
   * the vhosts it may see (RabbitMQ's filter_vhost), as in RabbitMQ for both kinds.
   */
  readonly authorizeOne: (c: Caller) => void;
}

const record = (p: PolicyRecord) => ({ vhost: p.vhost, name: p.name, pattern: p.pattern, "apply-to": p.applyTo, definition: p.definition, priority: p.priority });

export function registerPolicyKind(app: FastifyInstance, ctx: RouteContext, kind: PolicyKind): void {
  const b = ctx.broker;
  resource(app, ctx, kind.base, {
    GET: ({ caller, query }) => {
      return listResponse([...b.vhosts.values()].filter((v) => canSeeVhost(caller, v.name)).flatMap((v) => [...kind.of(v).values()].map(record)), query, ["priority"]);
    },
  });
  resource(app, ctx, `${kind.base}/:vhost`, {
    GET: ({ caller, params, query }) => {
      requireVhost(b, caller, params["vhost"]!);
      return listResponse([...kind.of(b.vhost(params["vhost"]!)).values()].map(record), query, ["priority"]);
    },
  });
  resource(app, ctx, `${kind.base}/:vhost/:name`, {
    GET: ({ caller, params }) => {
      kind.authorizeOne(caller);
      requireVhost(b, caller, params["vhost"]!);
      const p = kind.of(b.vhost(params["vhost"]!)).get(params["name"]!);
      if (!p) throw objectNotFound();
      return record(p);
    },
    PUT: (req) => {
      const { caller, params, body } = req;
      kind.authorizeOne(caller);
      requireVhost(b, caller, params["vhost"]!);
      const o = objectBody(body);
      const definition = o["definition"];
      if (definition === undefined) throw badRequest("[{key_missing,definition}]");
      if (definition === null || typeof definition !== "object" || Array.isArray(definition)) throw badRequest("'definition' must be a JSON object");
      const priority = o["priority"] ?? 0;
      const p: PolicyRecord = {
        vhost: params["vhost"]!,
        name: params["name"]!,
        pattern: reqString(o, "pattern"),
        applyTo: optString(o, "apply-to", "all"),
        definition: definition as Record<string, unknown>,
        priority: priority as number,
      };
      return kind.put(p, actorOf(req)) ? created() : noContent();
    },
    DELETE: (req) => {
      const { caller, params } = req;
      kind.authorizeOne(caller);
      requireVhost(b, caller, params["vhost"]!);
      kind.remove(params["vhost"]!, params["name"]!, actorOf(req));
      return noContent();
    },
  });
}
