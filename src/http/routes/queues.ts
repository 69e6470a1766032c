/** /api/queues: list (all, per vhost), one, PUT, DELETE (if-empty/if-unused), purge, get, bindings. */
import type { FastifyInstance } from "fastify";
import type { FieldTable } from "../../broker/values/field-value.js";
import { awaitFreshCounts, checkNameLength, deleteQueueAsync, purgeQueueAsync, type Queue } from "../../broker/index.js";
import { canSeeVhost, requireVhost } from "../http-auth.js";
import { objectNotFound } from "../http-errors.js";
import { listResponse } from "../list-query.js";
import { getMessages } from "../message-json.js";
import { bindingRecord, chartContext, defaultBindingRecord, queueRecord } from "../records.js";
import { queueDetailRecord } from "../detail-records.js";
import { objectBody, optBool, optObject } from "../request-body.js";
import { created, noContent, resource, type RouteContext } from "../route-table.js";
import { BrokerError } from "../../errors/broker-error.js";
import { inRouteOrder } from "../binding-order.js";
import { vhostNotFound } from "../../errors/reasons.js";
import { leaderQueueFigures, withLeaderFigures } from "../leader-queue-figures.js";
import { chartQuery, otherNodesConsumersOf } from "../whole-records.js";

export function registerQueues(app: FastifyInstance, ctx: RouteContext): void {
  const b = ctx.broker;
  const record = (q: Queue) => queueRecord(q, ctx, b.policyOf(q));
  // Vhosts in name order, each one's queues in name order: the default sort, already done.
  const listOf = async (vhosts: string[], query: Record<string, string | undefined>) => {
    const sorted = vhosts.sort();
    const sources = sorted.length === 1 ? b.vhost(sorted[0]!).queuesByName() : sorted.flatMap((v) => b.vhost(v).queuesByName());
    // Counts of queues led by other nodes no older than the bound (one ask per node; remote-counts.ts),
    // and their rates as their leaders see them (leader-queue-figures.ts), asked at once.
    const [, leaders] = await Promise.all([awaitFreshCounts(sources), leaderQueueFigures(ctx, sources)]);
    const build = leaders === null ? record : (q: Queue) => withLeaderFigures(record(q), leaders);
    return listResponse({ sources, presorted: true, key: (q) => ({ vhost: q.vhost, name: q.name }), build }, query);
  };

  resource(app, ctx, "/api/queues", {
    GET: ({ caller, query }) => listOf([...b.vhosts.keys()].filter((v) => canSeeVhost(caller, v)), query),
  });
  resource(app, ctx, "/api/queues/:vhost", {
    GET: ({ caller, params, query }) => {
      requireVhost(b, caller, params["vhost"]!);
      return listOf([params["vhost"]!], query);
    },
  });
  const queueOf = (vhost: string, name: string) => {
    const q = b.vhost(vhost).queues.get(name);
    if (!q) throw objectNotFound();
    return q;
  };
  resource(app, ctx, "/api/queues/:vhost/:name", {
    GET: async ({ caller, params, query }) => {
      requireVhost(b, caller, params["vhost"]!);
      const q = queueOf(params["vhost"]!, params["name"]!);
      const [, leaders, elsewhere] = await Promise.all([awaitFreshCounts([q]), leaderQueueFigures(ctx, [q], chartQuery(query)), otherNodesConsumersOf(ctx, q.vhost, q.name)]);
      const r = withLeaderFigures(queueDetailRecord(b, q, chartContext(ctx, query), b.policyOf(q)), leaders);
      // Consumers on other nodes' connections too (whole-records.ts), as RabbitMQ lists every node's.
      if (elsewhere.length > 0) (r["consumer_details"] as unknown[]).push(...elsewhere);
      return r;
    },
    PUT: ({ caller, params, body }) => {
      const vhost = params["vhost"]!;
      if (!b.vhosts.has(vhost)) throw vhostNotFound();
      requireVhost(b, caller, vhost);
      checkNameLength("queue", params["name"]!);
      const o = objectBody(body);
      const { created: isNew } = b.declareQueue(
        caller.ctx,
        vhost,
        { name: params["name"]!, durable: optBool(o, "durable", false), autoDelete: optBool(o, "auto_delete", false), exclusiveOwner: null, arguments: optObject(o, "arguments") as FieldTable },
        false,
      );
      return isNew ? created() : noContent();
    },
    DELETE: async ({ caller, params, query }) => {
      requireVhost(b, caller, params["vhost"]!);
      queueOf(params["vhost"]!, params["name"]!);
      // A queue led by another worker is deleted there (a round trip); its errors keep their status.
      const opts = { ifEmpty: query["if-empty"] === "true", ifUnused: query["if-unused"] === "true", mustExist: true };
      await notImplementedAsBadRequest(() => deleteQueueAsync(b, caller.ctx, params["vhost"]!, params["name"]!, opts));
      return noContent();
    },
  });
  resource(app, ctx, "/api/queues/:vhost/:name/contents", {
    DELETE: async ({ caller, params }) => {
      requireVhost(b, caller, params["vhost"]!);
      queueOf(params["vhost"]!, params["name"]!);
      await notImplementedAsBadRequest(() => purgeQueueAsync(b, caller.ctx, params["vhost"]!, params["name"]!));
      return noContent();
    },
  });
  resource(app, ctx, "/api/queues/:vhost/:name/get", {
    POST: async ({ caller, params, body }) => {
      requireVhost(b, caller, params["vhost"]!);
      const o = objectBody(body);
      // RabbitMQ 3.10 reports the AMQP refusal with its reply name: "NOT_FOUND - no queue …".
      let q;
      try {
        q = b.queueForRead(caller.ctx, params["vhost"]!, params["name"]!);
      } catch (err) {
        if (err instanceof BrokerError && err.kind === "notFound") throw new BrokerError("notFound", err.replyText);
        throw err;
      }
      // RabbitMQ 3.10 gets over an internal AMQP channel and reports a refusal with its code here.
      return await notImplementedAsBadRequest(() => getMessages(q, o), "540 ");
    },
  });
  resource(app, ctx, "/api/queues/:vhost/:name/bindings", {
    GET: ({ caller, params }) => {
      requireVhost(b, caller, params["vhost"]!);
      const q = queueOf(params["vhost"]!, params["name"]!);
      return [defaultBindingRecord(q), ...inRouteOrder(q.boundFrom).map(bindingRecord)];
    },
  });
}

/**
 * An operation the queue's type does not support (a stream's purge or get, a quorum queue's
 * delete with if-empty): RabbitMQ 3.10 answers 400 bad_request with the AMQP text (`prefix`: the
 * reply code it puts before it on some routes), not 501.
 */
async function notImplementedAsBadRequest<T>(op: () => Promise<T>, prefix = ""): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof BrokerError && err.kind === "notImplemented") throw new BrokerError("badRequest", `${prefix}${err.reason}`);
    throw err;
  }
}
