/**
 * Starts the MQTT side of a node: the shared MqttNode and its side listeners, MQTT over TCP, over
 * TLS (when the node has a certificate) and over WebSocket. A listener that cannot bind (port taken, no permission) is logged and left
 * out; the broker runs on without it, as RabbitMQ's other protocol listeners do not stop the node.
 */
import type { TlsOptions } from "node:tls";
import type { LoginThrottle } from "../auth/login-throttle.js";
import type { ResourceAlarms } from "../broker/alarms/resource-alarms.js";
import type { Broker } from "../broker/broker.js";
import type { ConeyConfig } from "../config/config.js";
import type { Logger } from "../logging/logger.js";
import { listenMqtt, type MqttListener } from "./mqtt-listener.js";
import { MqttNode, type MqttSettings } from "./mqtt-node.js";
import { listenWebMqtt } from "./web-mqtt-listener.js";

export interface MqttListeners {
  /** Bound ports; null when disabled or when the listener could not start. */
  readonly mqttPort: number | null;
  readonly mqttsPort: number | null;
  readonly webMqttPort: number | null;
  close(): Promise<void>;
}

export function mqttSettingsOf(config: ConeyConfig, loginThrottle: LoginThrottle | null): MqttSettings {
  return {
    vhost: config.mqttVhost,
    exchange: config.mqttExchange,
    allowAnonymous: config.mqttAllowAnonymous,
    defaultUser: config.mqttDefaultUser,
    defaultPass: config.mqttDefaultPass,
    prefetch: Math.max(1, config.mqttPrefetch),
    loopbackUsers: config.loopbackUsers,
    maxPacketSize: Math.min(config.maxMessageSize + 65_536, 268_435_455),
    connectTimeout: config.handshakeTimeout,
    maxConnections: config.maxConnections,
    loginThrottle,
  };
}

async function sideListener(what: string, port: number, bind: string, start: () => Promise<MqttListener>, logger: Logger): Promise<MqttListener | null> {
  try {
    const l = await start();
    logger.info(`${what} listener started`, { port: l.port, bind: bind || "*" });
    return l;
  } catch (err) {
    logger.error(`${what} listener could not start; the broker runs without it`, { port, err: err instanceof Error ? err.message : String(err) });
    return null;
  }
}

/** `tls`: the server's TLS options (its certificate), null when it has none: then no MQTTS. */
export async function startMqttListeners(broker: Broker, config: ConeyConfig, loginThrottle: LoginThrottle | null, logger: Logger, tls: TlsOptions | null, alarms: ResourceAlarms | null): Promise<MqttListeners> {
  const { mqttPort, webMqttPort, bind } = config;
  const mqttsPort = tls === null ? null : config.mqttsPort;
  if (mqttPort === null && mqttsPort === null && webMqttPort === null) return { mqttPort: null, mqttsPort: null, webMqttPort: null, close: () => Promise.resolve() };
  const node = new MqttNode(broker, mqttSettingsOf(config, loginThrottle), config.dataDir, logger, alarms);
  const tcp = mqttPort === null ? null : await sideListener("MQTT", mqttPort, bind, () => listenMqtt(node, mqttPort, bind), logger);
  const secure = mqttsPort === null ? null : await sideListener("MQTTS", mqttsPort, bind, () => listenMqtt(node, mqttsPort, bind, tls), logger);
  const web = webMqttPort === null ? null : await sideListener("Web MQTT", webMqttPort, bind, () => listenWebMqtt(node, webMqttPort, bind), logger);
  return {
    mqttPort: tcp?.port ?? null,
    mqttsPort: secure?.port ?? null,
    webMqttPort: web?.port ?? null,
    async close() {
      await tcp?.close();
      await secure?.close();
      await web?.close();
      node.close();
    },
  };
}
