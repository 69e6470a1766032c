/**
 * The management HTTP API server (Fastify): JSON in and out under /api, RabbitMQ's 404 body for
 * unknown paths, one error mapping, and the resource route files.
 */
import Fastify from "fastify";
import type { Broker } from "../broker/broker.js";
import type { ConeyConfig } from "../config/config.js";
import type { Logger } from "../logging/logger.js";
import { badRequest, sendError } from "./http-errors.js";
import type { RouteContext } from "./route-table.js";
import { RateSampler } from "./rate-sampler.js";
import { collectBroker } from "./rate-sources.js";
import { registerBindings } from "./routes/bindings.js";
import { registerConnections } from "./routes/connections.js";
import { registerDefinitions } from "./routes/definitions.js";
import { registerExchanges } from "./routes/exchanges.js";
import { registerHealth } from "./routes/health.js";
import { registerOverview } from "./routes/overview.js";
import { registerParameters } from "./routes/parameters.js";
import { registerPolicies } from "./routes/policies.js";
import { registerOperatorPolicies } from "./routes/operator-policies.js";
import { registerQueues } from "./routes/queues.js";
import { registerUsers } from "./routes/users.js";
import { registerVhosts } from "./routes/vhosts.js";

export interface HttpListener {
  readonly port: number;
  close(): Promise<void>;
}

export interface HttpOptions {
  readonly port: number;
  readonly bind: string;
  readonly config: ConeyConfig;
  readonly amqpPort: number;
}

export async function listenHttp(broker: Broker, opts: HttpOptions, logger: Logger): Promise<HttpListener> {
  // Names may be 255 bytes, which URL-encode to up to 765 characters: the router's default
  // parameter limit (100) would refuse valid names with a 414 before any route saw them.
  const app = Fastify({ logger: false, bodyLimit: 20_000_000, routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 } });
  // RabbitMQ accepts JSON whatever the content type says; an empty body means {}.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_req, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(badRequest(`not_json: ${(err as Error).message}`), undefined);
    }
  });
  app.setErrorHandler((err, _req, reply) => {
    const e = err as { statusCode?: number; code?: string };
    if (e.code === "FST_ERR_CTP_BODY_TOO_LARGE") return reply.code(413).send({ error: "payload_too_large", reason: "Exceeded HTTP request body size limit" });
    if (!(err instanceof Error && err.name === "BrokerError")) logger.error("management API error", { err });
    return sendError(reply, err);
  });
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ error: "Object Not Found", reason: "Not Found" }));

  const node = opts.config.clusterName;
  const rates = new RateSampler(collectBroker(broker));
  rates.start();
  const ctx: RouteContext = { broker, config: opts.config, node, listeners: [{ protocol: "amqp", port: opts.amqpPort }], rates };
  for (const register of [registerOverview, registerVhosts, registerUsers, registerQueues, registerExchanges, registerBindings, registerConnections, registerHealth, registerDefinitions, registerPolicies, registerOperatorPolicies, registerParameters]) {
    register(app, ctx);
  }
  await app.listen({ port: opts.port, host: opts.bind === "" ? "::" : opts.bind });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : opts.port;
  (ctx.listeners as Array<{ protocol: string; port: number }>).push({ protocol: "http", port });
  return {
    port,
    close: () => {
      rates.stop();
      return app.close();
    },
  };
}
