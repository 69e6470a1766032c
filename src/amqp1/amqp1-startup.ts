/**
 * AMQP 1.0 on the AMQP listeners (plain and TLS), configured from the node's configuration:
 * the same frame and session limits, heartbeat, logins and default vhost as AMQP 0-9-1.
 */
import type { Duplex } from "node:stream";
import type { Broker, ResourceAlarms } from "../broker/index.js";
import type { ConeyConfig } from "../config/config.js";
import type { Logger } from "../logging/logger.js";
import type { LoginThrottle } from "../auth/login-throttle.js";
import type { TokenVerifier } from "../auth/oauth/token-verifier.js";
import { certLoginName } from "../tls/cert-login-name.js";
import { amqp1Handover, type Amqp1Handover } from "./amqp1-handover.js";

export function amqp1Side(broker: Broker, config: ConeyConfig, logger: Logger, loginThrottle: LoginThrottle, tokens: TokenVerifier | null, alarms: ResourceAlarms | null): Amqp1Handover {
  return amqp1Handover(
    broker,
    {
      frameMax: config.frameMax,
      channelMax: config.channelMax === 0 ? 0xffff : config.channelMax,
      heartbeat: config.heartbeat,
      handshakeTimeout: config.handshakeTimeout,
      defaultVhost: config.defaultVhost,
      containerId: config.nodeName,
      maxConnections: config.maxConnections,
      maxMessageSize: config.maxMessageSize,
      // A window of 0 would refuse every transfer; the field is a uint.
      maxIncomingWindow: Math.min(0xffffffff, Math.max(1, config.amqp1MaxIncomingWindow)),
      alarms,
      loopbackUsers: config.loopbackUsers,
      tokens,
      throttle: loginThrottle,
      // RabbitMQ 4's anonymous_login_user / anonymous_login_pass (default guest, a loopback user; "none" turns ANONYMOUS off).
      anonymous: config.anonymousLoginUser === "none" ? null : { user: config.anonymousLoginUser, password: config.anonymousLoginPass },
      certName: (socket: Duplex) => certLoginName(socket, config.sslCertLoginFrom),
    },
    logger,
  );
}
