/**
 * The MQTT side of a node: the shared MqttNode and its side listeners (src/listeners), MQTT over
 * TCP (`mqtt`), over TLS when the node has a certificate (`mqtt/ssl`) and over WebSocket
 * (`http/web-mqtt`) and secure WebSocket when the node has a certificate and web_mqtt.ssl.port is
 * set (`https/web-mqtt`), with RabbitMQ's protocol names. A listener that cannot bind is retried in the
 * background by the supervisor; the node serves on without it.
 */
import type { TlsOptions } from "node:tls";
import type { LoginThrottle } from "../auth/login-throttle.js";
import type { TokenVerifier } from "../auth/oauth/token-verifier.js";
import type { Broker, ResourceAlarms } from "../broker/index.js";
import type { ConeyConfig } from "../config/config.js";
import type { SideListenerSpec } from "../listeners/side-listeners.js";
import { protocolListeners } from "../listeners/protocol-listeners.js";
import type { Logger } from "../logging/logger.js";
import type { ListenerCertificate } from "../tls/certificate-expiry.js";
import type { ClientIdPeers } from "./client-id-peers.js";
import { listenMqtt } from "./mqtt-listener.js";
import { MqttNode, type MqttSettings } from "./mqtt-node.js";
import { timeParkedWills } from "./mqtt-will.js";
import type { ReplicatedFiles } from "./saved-json-file.js";
import { listenWebMqtt } from "./web-mqtt-listener.js";

export function mqttSettingsOf(config: ConeyConfig, loginThrottle: LoginThrottle | null, tokens: TokenVerifier | null = null): MqttSettings {
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
    tokens,
    topicAliasMaximum: Math.max(0, Math.min(config.mqttTopicAliasMaximum, 65_535)),
    // startBroker options are not checked by load-config: kept within MQTT's ranges here too.
    receiveMaximum: Math.max(1, Math.min(config.mqttReceiveMaximum, 65_535)),
    serverKeepAlive: Math.max(0, Math.min(config.mqttServerKeepAlive, 65_535)),
    sslCertLogin: config.mqttSslCertLogin,
    sslCertLoginFrom: config.sslCertLoginFrom,
  };
}

export interface MqttSide {
  readonly node: MqttNode;
  /** For SideListeners.add, in order. */
  readonly listeners: readonly SideListenerSpec[];
}

export interface MqttSideOptions {
  readonly broker: Broker;
  readonly config: ConeyConfig;
  readonly loginThrottle: LoginThrottle | null;
  /** OAuth 2.0 token verification (null: not configured). */
  readonly tokens: TokenVerifier | null;
  readonly alarms: ResourceAlarms | null;
  readonly logger: Logger;
  /** The node's certificate, for MQTTS; null: no MQTTS. */
  readonly tls: { readonly options: TlsOptions; readonly certFile: string } | null;
  /** The certificate-expiry check's list: MQTTS adds its listener once bound. */
  readonly certificates: ListenerCertificate[];
  /** A cluster leader's replication: MQTT's files go to the followers (null: a single node, or a follower). */
  readonly replicated: ReplicatedFiles | null;
  /** `coney --workers N`: the other workers, for client-id takeover across them (client-id-peers.ts). */
  readonly clientIdPeers?: ClientIdPeers | null;
}

/** Null when every MQTT listener is disabled. */
export function mqttSide(o: MqttSideOptions): MqttSide | null {
  const { config, logger, tls } = o;
  const { mqttPort, webMqttPort } = config;
  const mqttsPort = tls === null ? null : config.mqttsPort;
  const webMqttsPort = tls === null ? null : config.webMqttsPort;
  if (mqttPort === null && mqttsPort === null && webMqttPort === null && webMqttsPort === null) return null;
  const node = new MqttNode(o.broker, mqttSettingsOf(config, o.loginThrottle, o.tokens), config.inMemory ? null : config.dataDir, logger, o.alarms, o.replicated, o.clientIdPeers ?? null);
  timeParkedWills(o.broker.vhosts.values());
  const bind = config.bind;
  const listeners = protocolListeners(
    [
      { protocol: "mqtt", label: "MQTT", port: mqttPort, tls: false, open: (port) => listenMqtt(node, port, bind) },
      { protocol: "mqtt/ssl", label: "MQTTS", port: mqttsPort, tls: true, open: (port, options) => listenMqtt(node, port, bind, options) },
      { protocol: "http/web-mqtt", label: "Web MQTT", port: webMqttPort, tls: false, open: (port) => listenWebMqtt(node, port, bind) },
      { protocol: "https/web-mqtt", label: "Web MQTT over TLS", port: webMqttsPort, tls: true, open: (port, options) => listenWebMqtt(node, port, bind, options) },
    ],
    { bind, logger, tls, certificates: o.certificates },
  );
  return { node, listeners };
}
