/**
 * The stream protocol listener (RabbitMQ's stream.listeners.tcp.default, port 5552), or with TLS
 * options the stream-over-TLS one (stream.listeners.ssl.default, 5551, the AMQPS certificate):
 * each accepted socket becomes a StreamConnection. A side listener (stream-startup.ts).
 */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { hostname } from "node:os";
import { createServer as createTlsServer, type TlsOptions } from "node:tls";
import { acceptIntoSlabs } from "../listeners/slab-reads.js";
import { peerOf } from "../auth/peer-address.js";
import { certLoginName } from "../tls/cert-login-name.js";
import { StreamConnection } from "./stream-connection.js";
import type { StreamNode } from "./stream-node.js";

export interface StreamListener {
  readonly port: number;
  close(): Promise<void>;
}

/** `exclusive`: this process alone listens (a worker's own port under `--workers`, never handed out by node:cluster's primary). */
export async function listenStream(node: StreamNode, port: number, bind: string, tls: TlsOptions | null = null, exclusive = false): Promise<StreamListener> {
  const own = new Set<StreamConnection>();
  const host = hostname();
  const accept = (socket: Socket): void => {
    socket.setNoDelay(true);
    const c = new StreamConnection(node, socket, { ...peerOf(socket, tls !== null), advertisedHost: host, certName: tls ? certLoginName(socket, node.settings.sslCertLoginFrom) : null });
    own.add(c);
    socket.on("close", () => own.delete(c));
  };
  const server: Server = tls ? createTlsServer({ handshakeTimeout: node.settings.handshakeTimeout * 1000, ...tls }, accept) : createServer({ pauseOnConnect: true }, acceptIntoSlabs(accept));
  if (tls) server.on("tlsClientError", (err) => node.log.info("stream TLS handshake failed", { err: err.message }));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // Port 0 is never a shared one (the primary of `coney --workers N` picks those): a port of this process alone.
    server.listen({ port, host: bind === "" ? undefined : bind, exclusive: exclusive || port === 0 }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (err) => node.log.error("stream listener error", { err }));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of own) c.shutdown();
        server.close(() => resolve());
      }),
  };
}
