/**
 * The management HTTP API server (Fastify): JSON in and out under /api, RabbitMQ's 404 body for
 * unknown paths, one error mapping, the resource route files, and the web UI's static files at /.
 */
import type { ListenerStatuses } from "../listeners/listener-status.js";
import type { ClusterView, Broker, ResourceAlarms } from "../broker/index.js";
import Fastify from "fastify";
import type { ConeyConfig } from "../config/config.js";
import type { Logger } from "../logging/logger.js";
import { badRequest, sendError } from "./http-errors.js";
import type { RouteContext } from "./route-table.js";
import { RequestLogins } from "./http-auth.js";
import { registerRateLimit } from "./request-rate-limit.js";
import type { TokenVerifier } from "../auth/oauth/token-verifier.js";
import type { LoginThrottle } from "../auth/login-throttle.js";
import { noteCertificate, type ListenerCertificate } from "../tls/certificate-expiry.js";
import { tlsServerOptions, type TlsFiles } from "../tls/tls-files.js";
import { RateSampler } from "./rate-sampler.js";
import { collectBroker, retentionPolicyOf } from "./rate-sources.js";
import { DEFAULT_RETENTION } from "./sample-history.js";
import { NODE_GAUGES_KEY, nodeGauges } from "./node-record.js";
import { registerAuth } from "./routes/auth.js";
import { registerFeatureFlags } from "./routes/feature-flags.js";
import { registerBindings } from "./routes/bindings.js";
import { registerConnections } from "./routes/connections.js";
import { registerStreamRoutes } from "./routes/stream-routes.js";
import { registerDefinitions } from "./routes/definitions.js";
import { registerExchanges } from "./routes/exchanges.js";
import { registerHealth } from "./routes/health.js";
import { registerOverview } from "./routes/overview.js";
import { registerParameters } from "./routes/parameters.js";
import { registerPermissionExplain } from "./routes/permission-explain.js";
import { registerPolicies } from "./routes/policies.js";
import { registerOperatorPolicies } from "./routes/operator-policies.js";
import { registerQueues } from "./routes/queues.js";
import { registerUsers } from "./routes/users.js";
import { registerVhosts } from "./routes/vhosts.js";
import { registerTopicPermissions } from "./routes/topic-permissions.js";
import { registerUserLimits } from "./routes/user-limits.js";
import { registerNodeOperations } from "./routes/node-operations.js";
import { registerClusterNodes } from "./routes/cluster-nodes.js";
import { registerUi } from "../ui/serve-ui.js";
import type { AuditTrail } from "../audit/audit-trail.js";
import { registerAudit } from "./routes/audit.js";
import { registerMyAccess } from "./routes/my-access.js";
import { registerFederationLinks } from "./routes/federation-links.js";
import type { FederationLinks } from "./federation-view.js";
import { registerShovels } from "./routes/shovels.js";
import type { Shovels } from "../shovel/shovels.js";
import type { PeerNodes } from "./peer-nodes.js";
import { answerPeer } from "./local-records.js";
import { holdChangesUntilFollowed } from "./answered-everywhere.js";

export interface HttpListener {
  readonly port: number;
  close(): Promise<void>;
}

export interface HttpOptions {
  readonly port: number;
  readonly bind: string;
  readonly config: ConeyConfig;
  /** A cluster's members for /api/nodes; null on a single node. */
  readonly cluster: ClusterView | null;
  readonly tokens: TokenVerifier | null;
  readonly alarms: ResourceAlarms;
  readonly loginThrottle: LoginThrottle;
  /** HTTPS with these files; null for plain HTTP. */
  readonly tls: TlsFiles | null;
  /** Every TLS listener's certificate (AMQPS and HTTPS), for the expiry health check. */
  readonly certificates: ListenerCertificate[];
  /** Every listener of the node, this one included, bound or not: for the listener health checks. */
  readonly listeners: ListenerStatuses;
  /** The audit trail (src/audit), for /api/coney/audit and the permission explainer. */
  readonly audit?: AuditTrail;
  /** The federation links (src/federation), for /api/federation-links. */
  readonly federation?: FederationLinks;
  /** The node's dynamic shovels (src/shovel), for /api/shovels. */
  readonly shovels?: Shovels;
  /** The broker's other nodes on this machine (`coney --workers N`, src/workers), for /api/nodes. */
  readonly peers?: PeerNodes;
}

/** A slow client cannot hold a request open: headers within 10 s, a whole request within 60 s. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 60_000;
const IDLE_KEEP_ALIVE_MS = 30_000;

export async function listenHttp(broker: Broker, opts: HttpOptions, logger: Logger): Promise<HttpListener> {
  // Names may be 255 bytes, which URL-encode to up to 765 characters: the router's default
  // parameter limit (100) would refuse valid names with a 414 before any route saw them.
  const app = Fastify({
    logger: false,
    bodyLimit: opts.config.httpBodyLimit,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    requestTimeout: REQUEST_TIMEOUT_MS,
    connectionTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: IDLE_KEEP_ALIVE_MS,
    ...(opts.tls ? { https: tlsServerOptions(opts.tls) } : {}),
  });
  app.server.headersTimeout = HEADERS_TIMEOUT_MS;
  const logins = new RequestLogins(broker, opts.config.loopbackUsers, opts.tokens, opts.loginThrottle);
  await registerRateLimit(app, opts.config.httpRateLimit, logins);
  // RabbitMQ accepts JSON whatever the content type says; an empty body means {}.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (req, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      // RabbitMQ's definitions import words it failed_to_parse_json; every other route not_json.
      const what = req.url.startsWith("/api/definitions") ? "failed_to_parse_json" : "not_json";
      done(badRequest(`${what}: ${(err as Error).message}`), undefined);
    }
  });
  app.setErrorHandler((err, _req, reply) => {
    const e = err as { statusCode?: number; code?: string };
    if (e.statusCode === 429) return reply.code(429).send({ error: "too_many_requests", reason: (err as { reason?: string }).reason ?? "Too many requests" });
    if (e.code === "FST_ERR_CTP_BODY_TOO_LARGE") return reply.code(413).send({ error: "payload_too_large", reason: "Exceeded HTTP request body size limit" });
    if (!(err instanceof Error && err.name === "BrokerError")) logger.error("management API error", { err });
    return sendError(reply, err);
  });
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ error: "Object Not Found", reason: "Not Found" }));

  const node = opts.config.nodeName;
  const collect = collectBroker(broker);
  const rates = new RateSampler(
    (visit) => {
      collect(visit);
      visit(NODE_GAUGES_KEY, nodeGauges(broker, opts.alarms));
    },
    Date.now,
    retentionPolicyOf,
    {
      global: opts.config.sampleRetention.global ?? DEFAULT_RETENTION.global,
      basic: opts.config.sampleRetention.basic ?? DEFAULT_RETENTION.basic,
    },
  );
  rates.start();
  const ctx: RouteContext = {
    broker,
    config: opts.config,
    cluster: opts.cluster,
    peers: opts.peers ?? null,
    node,
    listeners: opts.listeners,
    rates,
    alarms: opts.alarms,
    logins,
    certificates: opts.certificates,
    audit: opts.audit ?? null,
    federation: opts.federation ?? null,
  };
  // `coney --workers N`: this worker answers the others' list and overview queries (local-records.ts).
  opts.peers?.records?.serve((q) => answerPeer(ctx, q));
  // `coney --workers N`: a definition change is answered once every worker applied it.
  holdChangesUntilFollowed(app, broker);
  for (const register of [registerAuth, registerFeatureFlags, registerOverview, registerVhosts, registerUsers, registerQueues, registerExchanges, registerBindings, registerConnections, registerHealth, registerDefinitions, registerPolicies, registerOperatorPolicies, registerParameters, registerTopicPermissions, registerUserLimits, registerNodeOperations, registerPermissionExplain, registerMyAccess, registerClusterNodes, registerAudit, registerFederationLinks, registerStreamRoutes]) {
    register(app, ctx);
  }
  if (opts.shovels) {
    registerShovels(app, ctx, opts.shovels);
  }
  // The web UI: static files at / that use only this API.
  await registerUi(app);
  try {
    await app.listen({ port: opts.port, host: opts.bind === "" ? "::" : opts.bind });
  } catch (err) {
    // A port that cannot be bound leaves nothing running: the caller retries with a new app.
    rates.stop();
    await app.close();
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : opts.port;
  if (opts.tls) noteCertificate(opts.certificates, { protocol: "https", port, file: opts.tls.cert });
  return {
    port,
    close: () => {
      rates.stop();
      return app.close();
    },
  };
}
