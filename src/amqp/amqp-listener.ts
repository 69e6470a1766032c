/** The AMQP listener, plain TCP or TLS (AMQPS): each accepted socket becomes an AmqpConnection. */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { createServer as createTlsServer, type TlsOptions } from "node:tls";
import type { Broker } from "../broker/broker.js";
import type { Logger } from "../logging/logger.js";
import { AmqpConnection, type AmqpSettings } from "./connection/connection.js";

export interface AmqpListener {
  readonly port: number;
  close(): Promise<void>;
}

export async function listenAmqp(broker: Broker, settings: AmqpSettings, port: number, bind: string, logger: Logger, tls: TlsOptions | null = null): Promise<AmqpListener> {
  const sockets = new Set<Socket>();
  const accept = (socket: Socket): void => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    new AmqpConnection(socket, broker, settings, logger, tls !== null);
  };
  // The TLS handshake must finish within the AMQP handshake timeout too.
  const server: Server = tls ? createTlsServer({ handshakeTimeout: settings.handshakeTimeout * 1000, ...tls }, accept) : createServer(accept);
  if (tls) {
    // A failed TLS handshake (bad client certificate, not TLS at all) only concerns that socket.
    server.on("tlsClientError", (err) => logger.info("TLS handshake failed", { err: err.message }));
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, bind === "" ? undefined : bind, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of broker.connections.list()) c.forceClose("broker shutdown");
        server.close(() => resolve());
        setTimeout(() => {
          for (const s of sockets) s.destroy();
        }, 200).unref();
      }),
  };
}
