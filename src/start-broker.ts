/**
 * The composition root: builds the Broker from configuration, restores or bootstraps its
 * definitions, and starts the listeners. `startBroker` is also the programmatic API for
 * embedding Coney (e.g. in another project's tests): pass port 0 to get ephemeral ports.
 */
import { mkdirSync } from "node:fs";
import { listenAmqp, type AmqpListener } from "./amqp/amqp-listener.js";
import { bootstrapDefaults } from "./broker/bootstrap.js";
import { Broker } from "./broker/broker.js";
import { defaultConfig, type ConeyConfig } from "./config/config.js";
import { createLogger, type Logger } from "./logging/logger.js";
import { listenHttp, type HttpListener } from "./http/http-server.js";

export interface RunningBroker {
  readonly amqpPort: number;
  readonly httpPort: number | null;
  readonly broker: Broker;
  readonly config: ConeyConfig;
  close(): Promise<void>;
}

export interface StartOptions extends Partial<ConeyConfig> {
  logger?: Logger;
}

export async function startBroker(options: StartOptions = {}): Promise<RunningBroker> {
  const { logger: givenLogger, ...overrides } = options;
  const config: ConeyConfig = { ...defaultConfig(), ...overrides };
  const logger = givenLogger ?? createLogger(config.logLevel);
  mkdirSync(config.dataDir, { recursive: true });

  const broker = new Broker();
  bootstrapDefaults(broker, config);
  if (broker.authenticate("guest", "guest")) {
    logger.warn("the default user 'guest' exists with its default password; replace it before production use (see README, Production)");
  }

  const amqp: AmqpListener = await listenAmqp(
    broker,
    {
      channelMax: config.channelMax,
      frameMax: config.frameMax,
      heartbeat: config.heartbeat,
      maxMessageSize: config.maxMessageSize,
      loopbackUsers: config.loopbackUsers,
      handshakeTimeout: config.handshakeTimeout,
      clusterName: config.clusterName,
    },
    config.amqpPort,
    config.bind,
    logger,
  );
  logger.info("AMQP 0-9-1 listener started", { port: amqp.port, bind: config.bind || "*" });
  const http: HttpListener | null =
    config.httpPort === null ? null : await listenHttp(broker, { port: config.httpPort, bind: config.bind, config, amqpPort: amqp.port }, logger);
  if (http) logger.info("management API listener started", { port: http.port, bind: config.bind || "*" });

  let closed = false;
  return {
    amqpPort: amqp.port,
    httpPort: http?.port ?? null,
    broker,
    config,
    async close() {
      if (closed) return;
      closed = true;
      await http?.close();
      await amqp.close();
      logger.info("broker stopped");
    },
  };
}
