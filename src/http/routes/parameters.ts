/**
 * /api/parameters (vhost-scoped runtime parameters by component), /api/global-parameters, and
 * /api/vhost-limits, RabbitMQ's view of the `vhost-limits` component. Parameters need the
 * policymaker (or administrator) tag, as in RabbitMQ; limits are read by anyone who may know of
 * the vhost (monitors know of every vhost) and written by administrators.
 */
import { actorOf } from "../request-actor.js";
import type { FastifyInstance } from "fastify";
import { type Broker, VHOST_LIMITS_COMPONENT, VHOST_LIMITS_NAME, type VHost } from "../../broker/index.js";
import { canSeeVhost, isVisibleVhost, requireAdministrator, requirePolicymaker, requireVhost, requireVisibleVhost, type Caller } from "../http-auth.js";
import { badRequest, objectNotFound } from "../http-errors.js";
import { listResponse } from "../list-query.js";
import { objectBody } from "../request-body.js";
import { created, noContent, resource, type RouteContext } from "../route-table.js";
import { vhostNotFound } from "../../errors/reasons.js";

type ParameterRecord = { vhost: string; component: string; name: string; value: unknown };

function parametersOf(v: VHost, component?: string): ParameterRecord[] {
  const out: ParameterRecord[] = [];
  for (const [c, byName] of v.parameters) {
    if (component !== undefined && c !== component) continue;
    for (const [name, value] of byName) out.push({ vhost: v.name, component: c, name, value });
  }
  return out;
}

/** The vhosts whose parameters a caller may list (RabbitMQ's filter_vhost). */
function listableVhosts(b: Broker, caller: Caller): VHost[] {
  return [...b.vhosts.values()].filter((v) => canSeeVhost(caller, v.name));
}

function valueOf(body: unknown): unknown {
  const o = objectBody(body);
  if (!("value" in o)) throw badRequest("[{key_missing,value}]");
  return o["value"];
}

export function registerParameters(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  const byName = ["vhost", "component", "name"];

  resource(app, ctx, "/api/parameters", {
    GET: ({ caller, query }) => {
      requirePolicymaker(caller);
      return listResponse(listableVhosts(b, caller).flatMap((v) => parametersOf(v)), query, byName);
    },
  });
  resource(app, ctx, "/api/parameters/:component", {
    GET: ({ caller, params, query }) => {
      requirePolicymaker(caller);
      return listResponse(listableVhosts(b, caller).flatMap((v) => parametersOf(v, params["component"])), query, byName);
    },
  });
  resource(app, ctx, "/api/parameters/:component/:vhost", {
    GET: ({ caller, params, query }) => {
      requirePolicymaker(caller);
      requireVhost(b, caller, params["vhost"]!);
      return listResponse(parametersOf(b.vhost(params["vhost"]!), params["component"]), query, byName);
    },
  });
  resource(app, ctx, "/api/parameters/:component/:vhost/:name", {
    GET: ({ caller, params }) => {
      requirePolicymaker(caller);
      requireVhost(b, caller, params["vhost"]!);
      const { component, vhost, name } = params as { component: string; vhost: string; name: string };
      const byComponent = b.vhost(vhost).parameters.get(component);
      if (!byComponent?.has(name)) throw objectNotFound();
      return { vhost, component, name, value: byComponent.get(name) };
    },
    PUT: (req) => {
      const { caller, params, body } = req;
      requirePolicymaker(caller);
      requireVhost(b, caller, params["vhost"]!);
      return b.putParameter(params["component"]!, params["vhost"]!, params["name"]!, valueOf(body), actorOf(req)) ? created() : noContent();
    },
    DELETE: (req) => {
      const { caller, params } = req;
      requirePolicymaker(caller);
      requireVhost(b, caller, params["vhost"]!);
      b.deleteParameter(params["component"]!, params["vhost"]!, params["name"]!, actorOf(req));
      return noContent();
    },
  });

  resource(app, ctx, "/api/global-parameters", {
    GET: ({ caller, query }) => {
      requirePolicymaker(caller);
      return listResponse([...b.globalParameters].map(([name, value]) => ({ name, value })), query, ["name"]);
    },
  });
  resource(app, ctx, "/api/global-parameters/:name", {
    GET: ({ caller, params }) => {
      requirePolicymaker(caller);
      const name = params["name"]!;
      if (!b.globalParameters.has(name)) throw objectNotFound();
      return { name, value: b.globalParameters.get(name) };
    },
    PUT: (req) => {
      const { caller, params, body } = req;
      requirePolicymaker(caller);
      return b.putGlobalParameter(params["name"]!, valueOf(body), actorOf(req)) ? created() : noContent();
    },
    DELETE: (req) => {
      const { caller, params } = req;
      requirePolicymaker(caller);
      b.deleteGlobalParameter(params["name"]!, actorOf(req));
      return noContent();
    },
  });

  registerVhostLimits(app, ctx);
}

/** RabbitMQ's limits record: `{"vhost", "value": {"max-connections": N, "max-queues": N}}`. */
function limitsRecord(v: VHost): { vhost: string; value: unknown } | null {
  const value = v.parameters.get(VHOST_LIMITS_COMPONENT)?.get(VHOST_LIMITS_NAME);
  return value === undefined ? null : { vhost: v.name, value };
}

function registerVhostLimits(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  const present = (r: ReturnType<typeof limitsRecord>): r is { vhost: string; value: unknown } => r !== null;
  resource(app, ctx, "/api/vhost-limits", {
    // RabbitMQ lists the limits of every vhost a user may know of: monitors see them all.
    GET: ({ caller }) => [...b.vhosts.values()].filter((v) => isVisibleVhost(caller, v.name)).map(limitsRecord).filter(present),
  });
  resource(app, ctx, "/api/vhost-limits/:vhost", {
    GET: ({ caller, params }) => {
      requireVisibleVhost(b, caller, params["vhost"]!);
      return [limitsRecord(b.vhost(params["vhost"]!))].filter(present);
    },
  });
  resource(app, ctx, "/api/vhost-limits/:vhost/:name", {
    PUT: (req) => {
      const { caller, params, body } = req;
      requireAdministrator(caller);
      if (!b.vhosts.has(params["vhost"]!)) throw vhostNotFound();
      const v = b.vhost(params["vhost"]!);
      const current = (limitsRecord(v)?.value ?? {}) as Record<string, unknown>;
      b.putParameter(VHOST_LIMITS_COMPONENT, v.name, VHOST_LIMITS_NAME, { ...current, [params["name"]!]: valueOf(body) }, actorOf(req));
      return noContent();
    },
    DELETE: (req) => {
      const { caller, params } = req;
      requireAdministrator(caller);
      const v = b.vhost(params["vhost"]!);
      const current = { ...((limitsRecord(v)?.value ?? {}) as Record<string, unknown>) };
      if (!(params["name"]! in current)) throw objectNotFound();
      delete current[params["name"]!];
      if (Object.keys(current).length === 0) b.deleteParameter(VHOST_LIMITS_COMPONENT, v.name, VHOST_LIMITS_NAME, actorOf(req));
      else b.putParameter(VHOST_LIMITS_COMPONENT, v.name, VHOST_LIMITS_NAME, current, actorOf(req));
      return noContent();
    },
  });
}
