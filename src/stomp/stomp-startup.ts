/**
 * The STOMP side of a node: the shared StompNode and its side listeners (src/listeners), STOMP
 * over TCP (`stomp`), over TLS when the node has a certificate (`stomp/ssl`) and over WebSocket
 * (`http/web-stomp`), with RabbitMQ's protocol names. A listener that cannot bind is retried in
 * the background; the node serves on without it.
 */
import type { TlsOptions } from "node:tls";
import type { LoginThrottle } from "../auth/login-throttle.js";
import type { TokenVerifier } from "../auth/oauth/token-verifier.js";
import type { Broker } from "../broker/index.js";
import type { ConeyConfig } from "../config/config.js";
import type { SideListenerSpec } from "../listeners/side-listeners.js";
import { protocolListeners } from "../listeners/protocol-listeners.js";
import type { Logger } from "../logging/logger.js";
import type { ListenerCertificate } from "../tls/certificate-expiry.js";
import { listenStomp } from "./stomp-listener.js";
import { StompNode, type StompSettings } from "./stomp-node.js";
import { listenWebStomp } from "./web-stomp-listener.js";

export function stompSettingsOf(config: ConeyConfig, loginThrottle: LoginThrottle | null, tokens: TokenVerifier | null): StompSettings {
  return {
    defaultUser: config.stompDefaultUser,
    defaultPass: config.stompDefaultPass,
    implicitConnect: config.stompImplicitConnect,
    defaultVhost: config.stompDefaultVhost,
    loopbackUsers: config.loopbackUsers,
    connectTimeout: config.handshakeTimeout,
    maxConnections: config.maxConnections,
    loginThrottle,
    tokens,
    sslCertLogin: config.stompSslCertLogin,
    sslCertLoginFrom: config.sslCertLoginFrom,
    limits: { maxHeaderBytes: 100 * 1024, maxHeaders: 1000, maxBodyBytes: config.maxMessageSize },
  };
}

export interface StompSideOptions {
  readonly broker: Broker;
  readonly config: ConeyConfig;
  readonly loginThrottle: LoginThrottle | null;
  readonly tokens: TokenVerifier | null;
  readonly logger: Logger;
  /** The node's certificate, for STOMP over TLS; null: none. */
  readonly tls: { readonly options: TlsOptions; readonly certFile: string } | null;
  readonly certificates: ListenerCertificate[];
}

/** The listeners to add, in order; empty when every STOMP listener is disabled. */
export function stompSide(o: StompSideOptions): readonly SideListenerSpec[] {
  const { config, logger, tls } = o;
  const { stompPort, webStompPort } = config;
  const stompsPort = tls === null ? null : config.stompsPort;
  if (stompPort === null && stompsPort === null && webStompPort === null) return [];
  const node = new StompNode(o.broker, stompSettingsOf(config, o.loginThrottle, o.tokens), logger);
  const bind = config.bind;
  return protocolListeners(
    [
      { protocol: "stomp", label: "STOMP", port: stompPort, tls: false, open: (port) => listenStomp(node, port, bind) },
      { protocol: "stomp/ssl", label: "STOMP over TLS", port: stompsPort, tls: true, open: (port, options) => listenStomp(node, port, bind, options) },
      { protocol: "http/web-stomp", label: "Web STOMP", port: webStompPort, tls: false, open: (port) => listenWebStomp(node, port, bind) },
    ],
    { bind, logger, tls, certificates: o.certificates },
  );
}
