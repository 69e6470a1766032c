/**
 * The stream side of a node: the shared StreamNode and its side listeners (src/listeners), the
 * stream protocol over TCP (`stream`) and over TLS when the node has a certificate
 * (`stream/ssl`), with RabbitMQ's protocol names. A listener that cannot bind is retried in the
 * background; the node serves on without it.
 */
import type { TlsOptions } from "node:tls";
import type { LoginThrottle } from "../auth/login-throttle.js";
import type { TokenVerifier } from "../auth/oauth/token-verifier.js";
import type { Broker, ClusterView } from "../broker/index.js";
import type { ConeyConfig } from "../config/config.js";
import type { SideListenerSpec } from "../listeners/side-listeners.js";
import type { Logger } from "../logging/logger.js";
import type { ListenerCertificate } from "../tls/certificate-expiry.js";
import { DEFAULT_FRAME_MAX, DEFAULT_HEARTBEAT } from "./protocol.js";
import { listenStream } from "./stream-listener.js";
import { StreamNode } from "./stream-node.js";
import type { StreamWorkerPorts } from "./stream-worker-ports.js";

export interface StreamSideOptions {
  readonly broker: Broker;
  readonly config: ConeyConfig;
  /** The cluster this node leads (Metadata lists its replicas); null on a single node. */
  readonly cluster: ClusterView | null;
  readonly loginThrottle: LoginThrottle | null;
  readonly tokens: TokenVerifier | null;
  readonly logger: Logger;
  /** The node's certificate; null: no stream over TLS. */
  readonly tls: { readonly options: TlsOptions; readonly certFile: string } | null;
  readonly certificates: ListenerCertificate[];
  /** Under `coney --workers N` (the workers' own stream ports) and in a spread cluster (each node's): stream-worker-ports.ts; absent otherwise. */
  readonly workers?: StreamWorkerPorts;
}

export interface StreamSide {
  readonly node: StreamNode;
  readonly listeners: readonly SideListenerSpec[];
}

/** Null when both stream listeners are disabled. */
export function streamSide(o: StreamSideOptions): StreamSide | null {
  const { config, logger, tls } = o;
  const port = config.streamPort;
  const tlsPort = tls === null ? null : config.streamTlsPort;
  if (port === null && tlsPort === null) return null;
  const node = new StreamNode(
    o.broker,
    {
      frameMax: DEFAULT_FRAME_MAX,
      heartbeat: DEFAULT_HEARTBEAT,
      advertisedHost: config.streamAdvertisedHost,
      advertisedPort: config.streamAdvertisedPort,
      loopbackUsers: config.loopbackUsers,
      maxConnections: config.maxConnections,
      loginThrottle: o.loginThrottle,
      tokens: o.tokens,
      handshakeTimeout: config.handshakeTimeout,
      clusterName: config.clusterName,
      sslCertLoginFrom: config.sslCertLoginFrom,
    },
    logger,
    o.cluster,
    o.workers ?? null,
  );
  const bind = config.bind;
  const listeners: SideListenerSpec[] = [];
  if (port !== null) listeners.push({ protocol: "stream", port, open: () => listenStream(node, port, bind), opened: (l) => logger.info("stream protocol listener started", { port: l.port, bind: bind || "*" }) });
  const own = o.workers?.own ?? null;
  if (port !== null && own !== null) listeners.push({ protocol: "stream", port: own, open: () => listenStream(node, own, bind, null, true), opened: (l) => logger.info("stream protocol listener of this worker started", { port: l.port, bind: bind || "*" }) });
  if (tlsPort !== null && tls !== null) {
    listeners.push({
      protocol: "stream/ssl",
      port: tlsPort,
      open: () => listenStream(node, tlsPort, bind, tls.options),
      opened: (l) => {
        if (!o.certificates.some((c) => c.protocol === "stream/ssl")) o.certificates.push({ protocol: "stream/ssl", port: l.port, file: tls.certFile });
        logger.info("stream protocol over TLS listener started", { port: l.port, bind: bind || "*" });
      },
    });
  }
  return { node, listeners };
}
