/**
 * Resources are declared as a path plus handlers by method; every other method on the path
 * answers 405 with an `Allow` header (RabbitMQ's cowboy_rest behaviour). Handlers receive the
 * authenticated caller; errors become catalogue answers in one place.
 */
import type { ListenerStatuses } from "../listeners/listener-status.js";
import type { ClusterView, Broker, ResourceAlarms } from "../broker/index.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ConeyConfig } from "../config/config.js";
import type { Caller, RequestLogins } from "./http-auth.js";
import { sendError } from "./http-errors.js";
import type { ListenerCertificate } from "../tls/certificate-expiry.js";
import type { RateView } from "./rate-sampler.js";
import type { AuditTrail } from "../audit/audit-trail.js";
import type { FederationLinks } from "./federation-view.js";
import type { PeerNodes } from "./peer-nodes.js";

export type Method = "GET" | "PUT" | "POST" | "DELETE";

export interface RouteContext {
  readonly broker: Broker;
  readonly config: ConeyConfig;
  readonly node: string;
  /** A cluster's members for /api/nodes; null on a single node. */
  readonly cluster: ClusterView | null;
  /** The other workers of `coney --workers N` for /api/nodes; null for a single process. */
  readonly peers: PeerNodes | null;
  /** The node's listeners now, bound or not (src/listeners): health checks and the overview read them. */
  readonly listeners: ListenerStatuses;
  /** Certificates of the TLS listeners, for the certificate-expiration health check. */
  readonly certificates: readonly ListenerCertificate[];
  /** Live resource alarms (memory, disk). */
  readonly alarms: ResourceAlarms;
  /** Each request's login (with OAuth 2.0 tokens and failed-login throttling), shared with the request-rate limit. */
  readonly logins: RequestLogins;
  readonly rates: RateView;
  /** The audit trail, null when the node keeps none. */
  readonly audit: AuditTrail | null;
  /** Federation links (src/federation), null when the node runs none (an embedded API without it). */
  readonly federation: FederationLinks | null;
}

export interface Request {
  readonly caller: Caller;
  readonly params: Record<string, string>;
  readonly query: Record<string, string | undefined>;
  readonly body: unknown;
  readonly raw: FastifyRequest;
}

/** A handler returns the JSON body (200), or a Reply for other statuses. */
export type Handler = (req: Request) => unknown;

export class Reply {
  constructor(readonly status: number, readonly body?: unknown, readonly headers: Record<string, string> = {}) {}
}

export const created = (headers: Record<string, string> = {}): Reply => new Reply(201, undefined, headers);
export const noContent = (): Reply => new Reply(204);

const ALL: Method[] = ["GET", "PUT", "POST", "DELETE"];

export function resource(app: FastifyInstance, ctx: RouteContext, path: string, handlers: Partial<Record<Method, Handler>>, open = false): void {
  const allowed = ALL.filter((m) => handlers[m]);
  const allow = [...allowed, ...(allowed.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ");
  app.route({
    method: ["GET", "HEAD", "PUT", "POST", "DELETE", "PATCH", "OPTIONS"],
    url: path,
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      const method = (req.method === "HEAD" ? "GET" : req.method) as Method;
      if (req.method === "OPTIONS") return reply.code(204).header("allow", allow).send();
      const h = handlers[method];
      if (!h) return reply.code(405).header("allow", allow).send();
      try {
        const caller = open ? (null as unknown as Caller) : await ctx.logins.callerOf(req);
        // Awaited: a few handlers (forgetting a cluster node) wait on another service.
        const result = await h({
          caller,
          params: req.params as Record<string, string>,
          query: req.query as Record<string, string | undefined>,
          body: req.body,
          raw: req,
        });
        if (result instanceof Reply) {
          reply.code(result.status).headers(result.headers);
          return result.body === undefined ? reply.send() : reply.send(result.body);
        }
        return reply.code(200).send(result);
      } catch (err) {
        return sendError(reply, err);
      }
    },
  });
}
