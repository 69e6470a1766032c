/**
 * /api/bindings: list (all, per vhost), e→q and e→e: GET list, POST (201 + relative Location),
 * GET/DELETE one by its properties key. Keys are matched against the bindings that exist, in
 * raw and decoded form, so routing keys holding ~ + % / stay reachable.
 */
import type { FastifyInstance } from "fastify";
import type { FieldTable } from "../../broker/values/field-value.js";
import type { Binding } from "../../broker/index.js";
import { canSeeVhost, requireVhost } from "../http-auth.js";
import { objectNotFound } from "../http-errors.js";
import { listResponse } from "../list-query.js";
import { inRouteOrder } from "../binding-order.js";
import { notFound } from "../../errors/broker-error.js";
import { exchangeName } from "./exchanges.js";
import { propertiesKey } from "../properties-key.js";
import { bindingRecord, defaultBindingRecord } from "../records.js";
import { objectBody, optObject, optString } from "../request-body.js";
import { created, noContent, resource, type Request, type RouteContext } from "../route-table.js";

export function registerBindings(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  // RabbitMQ lists each queue's implicit default-exchange binding first, then the declared ones.
  const all = (vhost: string): Record<string, unknown>[] => {
    const v = b.vhost(vhost);
    return [...[...v.queues.values()].map(defaultBindingRecord), ...inRouteOrder(v.bindings()).map(bindingRecord)];
  };

  // Not paged (as RabbitMQ); `columns`, `sort` apply. The route order is kept unless sorted.
  resource(app, ctx, "/api/bindings", { GET: ({ caller, query }) => listResponse([...b.vhosts.keys()].sort().filter((v) => canSeeVhost(caller, v)).flatMap(all), query, []) });
  resource(app, ctx, "/api/bindings/:vhost", {
    GET: ({ caller, params, query }) => {
      requireVhost(b, caller, params["vhost"]!);
      return listResponse(all(params["vhost"]!), query, []);
    },
  });

  for (const dtype of ["q", "e"] as const) {
    const kind = dtype === "q" ? "queue" : "exchange";
    const ends = (r: Request) => {
      const vhost = r.params["vhost"]!;
      requireVhost(b, r.caller, vhost);
      const v = b.vhost(vhost);
      const source = v.exchanges.get(exchangeName(r.params["source"]!));
      const dest = dtype === "q" ? v.queues.get(r.params["dest"]!) : v.exchanges.get(exchangeName(r.params["dest"]!));
      if (!source || !dest) throw objectNotFound();
      return { vhost, source, dest, between: inRouteOrder(source.bindings.values()).filter((x) => x.destination === dest) };
    };
    const findByProps = (r: Request): Binding => {
      const { between } = ends(r);
      const decoded = r.params["props"]!;
      const raw = r.raw.url.split("?")[0]!.split("/").pop()!;
      const hit = between.find((x) => {
        const pk = propertiesKey(x.routingKey, x.args);
        return pk === raw || pk === decoded || safeDecode(pk) === decoded;
      });
      if (!hit) throw objectNotFound();
      return hit;
    };
    const base = `/api/bindings/:vhost/e/:source/${dtype}/:dest`;
    resource(app, ctx, base, {
      GET: (r) => {
        const { source, dest, between } = ends(r);
        // The default exchange's bindings are implicit: one per queue, keyed by its name.
        if (source.name === "" && dest.kind === "queue") return [defaultBindingRecord(dest)];
        return between.map(bindingRecord);
      },
      POST: (r) => {
        // Creating names its missing end as the AMQP bind does: 404 not_found "no queue 'q' in vhost 'v'".
        const vhost = r.params["vhost"]!;
        requireVhost(b, r.caller, vhost);
        const v = b.vhost(vhost);
        const source = v.exchanges.get(exchangeName(r.params["source"]!));
        if (!source) throw notFound("exchange", exchangeName(r.params["source"]!), vhost);
        const dest = dtype === "q" ? v.queues.get(r.params["dest"]!) : v.exchanges.get(exchangeName(r.params["dest"]!));
        if (!dest) throw notFound(kind, dtype === "q" ? r.params["dest"]! : exchangeName(r.params["dest"]!), vhost);
        const o = objectBody(r.body);
        const key = optString(o, "routing_key", "");
        const args = optObject(o, "arguments") as FieldTable;
        if (kind === "queue") b.bindQueue(r.caller.ctx, vhost, dest.name, source.name, key, args);
        else b.bindExchange(r.caller.ctx, vhost, dest.name, source.name, key, args);
        // RabbitMQ's Location is relative and percent-encodes the properties key once more.
        return created({ location: `${encodeURIComponent(r.params["dest"]!)}/${encodeURIComponent(propertiesKey(key, args))}` });
      },
    });
    resource(app, ctx, `${base}/:props`, {
      GET: (r) => bindingRecord(findByProps(r)),
      DELETE: (r) => {
        const hit = findByProps(r);
        const vhost = r.params["vhost"]!;
        if (kind === "queue") b.unbindQueue(r.caller.ctx, vhost, hit.destination.name, hit.source.name, hit.routingKey, hit.args);
        else b.unbindExchange(r.caller.ctx, vhost, hit.destination.name, hit.source.name, hit.routingKey, hit.args);
        return noContent();
      },
    });
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return s;
  }
}
