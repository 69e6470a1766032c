/** /api/exchanges: list, one, PUT, DELETE (if-unused), publish, bindings source/destination. */
import type { FastifyInstance } from "fastify";
import type { FieldTable } from "../../broker/values/field-value.js";
import { exchangeDetailRecord } from "../detail-records.js";
import { createMessage, type Exchange, checkNameLength, type Queue } from "../../broker/index.js";
import { canSeeVhost, requireVhost } from "../http-auth.js";
import { objectNotFound } from "../http-errors.js";
import { inRouteOrder } from "../binding-order.js";
import { asPublishError } from "../publish-errors.js";
import { listResponse } from "../list-query.js";
import { payloadFromJson, propertiesFromJson } from "../message-json.js";
import { bindingRecord, chartContext, exchangeRecord } from "../records.js";
import { objectBody, optBool, optObject, optString } from "../request-body.js";
import { created, noContent, resource, type RouteContext } from "../route-table.js";
import { vhostNotFound } from "../../errors/reasons.js";
import { withWholeExchangeStats } from "../whole-exchange-stats.js";
import { chartQuery } from "../whole-records.js";

/** RabbitMQ's alias: the default exchange "" is written amq.default in paths. */
export const exchangeName = (segment: string): string => (segment === "amq.default" ? "" : segment);

export function registerExchanges(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  // Under `coney --workers N` each exchange's message_stats are summed over the workers (whole-exchange-stats.ts).
  const listOf = async (vhosts: string[], query: Record<string, string | undefined>) =>
    listResponse(await withWholeExchangeStats(ctx, vhosts.flatMap((v) => [...b.vhost(v).exchanges.values()].map(record)), vhosts), query);
  const exchangeOf = (vhost: string, segment: string) => {
    const x = b.vhost(vhost).exchanges.get(exchangeName(segment));
    if (!x) throw objectNotFound();
    return x;
  };
  const scratch: Queue[] = [];
  const record = (x: Exchange) => exchangeRecord(x, ctx, b.policyOf(x));

  resource(app, ctx, "/api/exchanges", { GET: ({ caller, query }) => listOf([...b.vhosts.keys()].filter((v) => canSeeVhost(caller, v)), query) });
  resource(app, ctx, "/api/exchanges/:vhost", {
    GET: ({ caller, params, query }) => {
      requireVhost(b, caller, params["vhost"]!);
      return listOf([params["vhost"]!], query);
    },
  });
  resource(app, ctx, "/api/exchanges/:vhost/:name", {
    GET: async ({ caller, params, query }) => {
      requireVhost(b, caller, params["vhost"]!);
      const x = exchangeOf(params["vhost"]!, params["name"]!);
      const [r] = await withWholeExchangeStats(ctx, [exchangeDetailRecord(x, chartContext(ctx, query), b.policyOf(x))], [x.vhost], chartQuery(query));
      return r;
    },
    PUT: ({ caller, params, body }) => {
      const vhost = params["vhost"]!;
      if (!b.vhosts.has(vhost)) throw vhostNotFound();
      requireVhost(b, caller, vhost);
      const name = exchangeName(params["name"]!);
      checkNameLength("exchange", name);
      const o = objectBody(body);
      const isNew = b.declareExchange(
        caller.ctx,
        vhost,
        {
          name,
          type: optString(o, "type", "direct"),
          durable: optBool(o, "durable", true),
          autoDelete: optBool(o, "auto_delete", false),
          internal: optBool(o, "internal", false),
          arguments: optObject(o, "arguments") as FieldTable,
        },
        false,
      );
      return isNew ? created() : noContent();
    },
    DELETE: ({ caller, params, query }) => {
      requireVhost(b, caller, params["vhost"]!);
      exchangeOf(params["vhost"]!, params["name"]!);
      b.deleteExchange(caller.ctx, params["vhost"]!, exchangeName(params["name"]!), query["if-unused"] === "true", true);
      return noContent();
    },
  });
  resource(app, ctx, "/api/exchanges/:vhost/:name/publish", {
    POST: ({ caller, params, body }) => {
      const vhost = params["vhost"]!;
      requireVhost(b, caller, vhost);
      const o = objectBody(body);
      const payload = payloadFromJson(o);
      const properties = propertiesFromJson(optObject(o, "properties"));
      const routingKey = optString(o, "routing_key", "");
      const v = b.vhost(vhost);
      return asPublishError(() => {
        const x = b.exchangeForPublish(caller.ctx, v, exchangeName(params["name"]!), routingKey);
        const message = createMessage(x.name, routingKey, properties, null, payload, Date.now());
        return { routed: b.publish(v, x, message, scratch) > 0 };
      });
    },
  });
  resource(app, ctx, "/api/exchanges/:vhost/:name/bindings/source", {
    GET: ({ caller, params }) => {
      requireVhost(b, caller, params["vhost"]!);
      return inRouteOrder(exchangeOf(params["vhost"]!, params["name"]!).bindings.values()).map(bindingRecord);
    },
  });
  resource(app, ctx, "/api/exchanges/:vhost/:name/bindings/destination", {
    GET: ({ caller, params }) => {
      requireVhost(b, caller, params["vhost"]!);
      return inRouteOrder(exchangeOf(params["vhost"]!, params["name"]!).boundFrom).map(bindingRecord);
    },
  });
}
