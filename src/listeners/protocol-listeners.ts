/**
 * A protocol's side listeners from its ports (MQTT: plain, TLS, WebSocket, secure WebSocket;
 * STOMP: plain, TLS, WebSocket): what each needs beyond binding is the same — a port turned off
 * (null) is not listened on, a TLS one only when the node has a certificate, whose file is noted
 * for the certificate-expiration check once the listener is bound, and one "<label> listener
 * started" line per bind (also after a retry). The protocol says only how to open each.
 */
import type { TlsOptions } from "node:tls";
import type { Logger } from "../logging/logger.js";
import { noteCertificate, type ListenerCertificate } from "../tls/certificate-expiry.js";
import type { OpenListener, SideListenerSpec } from "./side-listeners.js";

export interface ProtocolPort {
  /** As health checks and coney_listener_up name it, RabbitMQ's name: "mqtt", "mqtt/ssl", "http/web-stomp". */
  readonly protocol: string;
  /** As the log names it: "MQTTS" gives "MQTTS listener started". */
  readonly label: string;
  /** Null: turned off. */
  readonly port: number | null;
  /** Served over TLS with the node's certificate: not listened on without one. */
  readonly tls: boolean;
  /** Binds it (`tls`: the node's TLS options for a TLS port, null for a plain one). */
  open(port: number, tls: TlsOptions | null): Promise<OpenListener>;
}

export interface ProtocolListenerContext {
  /** The address to bind ("": every interface), as logged. */
  readonly bind: string;
  readonly logger: Logger;
  /** The node's certificate; null: no TLS port is listened on. */
  readonly tls: { readonly options: TlsOptions; readonly certFile: string } | null;
  /** The certificate-expiry check's list: a TLS listener adds itself once bound. */
  readonly certificates: ListenerCertificate[];
}

/** The side listeners to add, in the order of `ports`, for those that are on. */
export function protocolListeners(ports: readonly ProtocolPort[], ctx: ProtocolListenerContext): SideListenerSpec[] {
  const specs: SideListenerSpec[] = [];
  for (const p of ports) {
    const port = p.port;
    if (port === null) continue;
    const tls = p.tls ? ctx.tls : null;
    if (p.tls && tls === null) continue;
    specs.push({
      protocol: p.protocol,
      port,
      open: () => p.open(port, tls?.options ?? null),
      opened: (l) => {
        if (tls !== null) noteCertificate(ctx.certificates, { protocol: p.protocol, port: l.port, file: tls.certFile });
        ctx.logger.info(`${p.label} listener started`, { port: l.port, bind: ctx.bind || "*" });
      },
    });
  }
  return specs;
}
