/** The AMQP listener, plain TCP or TLS (AMQPS): each accepted socket becomes an AmqpConnection. */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { createServer as createTlsServer, type TlsOptions } from "node:tls";
import type { Broker } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import type { AmqpSettings } from "./connection/amqp-settings.js";
import type { SlabPool } from "../listeners/slab-pool.js";
import { acceptIntoSlabs, type SlabTails } from "../listeners/slab-reads.js";
import { AmqpConnection } from "./connection/connection.js";

/** Sockets accepted past the socket limit, so that refused clients hear a 530 rather than a reset. */
const HANDSHAKE_SLACK = 8;
/** How often free read slabs are cut to the number taken meanwhile (SlabPool.trimToDemand). */
const SLAB_TRIM_MS = 5000;

export interface AmqpListener {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * `slabs`: the pool plain-TCP reads take their slabs from and return them to (src/listeners/
 * slab-pool.ts), or null: each slab is then the garbage collector's.
 */
export async function listenAmqp(broker: Broker, settings: AmqpSettings, port: number, bind: string, logger: Logger, tls: TlsOptions | null = null, slabs: SlabPool | null = null): Promise<AmqpListener> {
  const sockets = new Set<Socket>();
  const alarms = settings.alarms ?? null;
  const accept = (socket: Socket, tails: SlabTails | null = null): void => {
    // At the socket limit (ResourceAlarms.socketLimit) a connection is refused at connection.open
    // with 530 (admitConnection); beyond a few more handshakes, sockets are closed at once so a
    // flood cannot take the descriptors the store and the management API need.
    if (alarms !== null && alarms.socketsUsed >= alarms.socketLimit + HANDSHAKE_SLACK) {
      logger.warn("connection refused: the socket limit is reached (file descriptors)", { sockets_total: alarms.socketLimit });
      socket.destroy();
      return;
    }
    sockets.add(socket);
    if (alarms !== null) alarms.socketsUsed++;
    socket.on("close", () => {
      sockets.delete(socket);
      if (alarms !== null) alarms.socketsUsed--;
    });
    new AmqpConnection(socket, broker, settings, logger, tls !== null, tails);
  };
  // The TLS handshake must finish within the AMQP handshake timeout too. Plain TCP reads into slabs.
  const server: Server = tls ? createTlsServer({ handshakeTimeout: settings.handshakeTimeout * 1000, ...tls }, accept) : createServer({ pauseOnConnect: true }, acceptIntoSlabs(accept, slabs));
  if (tls) {
    // A failed TLS handshake (bad client certificate, not TLS at all) only concerns that socket.
    server.on("tlsClientError", (err) => logger.info("TLS handshake failed", { err: err.message }));
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // Port 0 in a worker of `coney --workers N` is a port of its own (the shared ones are picked by the primary, non-zero):
    // exclusive, or node:cluster would hand every worker's listen(0) the same port (an adopted store's broker, docs/CLUSTERING.md).
    server.listen({ port, host: bind === "" ? undefined : bind, exclusive: port === 0 }, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const trim = slabs === null ? null : setInterval(() => slabs.trimToDemand(), SLAB_TRIM_MS).unref();
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        if (trim !== null) clearInterval(trim);
        for (const c of broker.connections.list()) c.forceClose("broker shutdown");
        server.close(() => resolve());
        setTimeout(() => {
          for (const s of sockets) s.destroy();
        }, 200).unref();
      }),
  };
}
