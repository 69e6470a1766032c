/**
 * A protocol over TCP, or with TLS options over TLS (MQTT and MQTTS, STOMP and STOMP over TLS):
 * the server, the rule that a TLS handshake must finish within the time the protocol allows its
 * login, and the connections it accepted (shut down when it closes). The protocol makes its
 * connection of each accepted socket; this module owns what every such listener does the same
 * way: no Nagle delay, a failed handshake logged at info, a server error never unheard. The
 * WebSocket twin is web-socket-listener.ts; AMQP's own listener reads frames into pooled slabs
 * and stays in src/amqp.
 */
import { createServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer, type TlsOptions } from "node:tls";
import type { Logger } from "../logging/logger.js";
import { listenOn } from "./listen-on.js";
import type { OpenListener } from "./side-listeners.js";
import { acceptIntoSlabs } from "./slab-reads.js";

export interface SocketProtocol<C extends { shutdown(): void }> {
  /** As named in texts: "MQTT", "STOMP". */
  readonly name: string;
  /** Its TLS variant as named in texts: "MQTTS", "STOMP over TLS". */
  readonly tlsName: string;
  readonly log: Logger;
  /** With TLS: the handshake's time limit. */
  readonly handshakeTimeoutMs: number;
  /** Plain TCP reads into slabs (slab-reads.ts) instead of a new buffer per read. */
  readonly readsIntoSlabs: boolean;
  /** An accepted socket (TCP or TLS): the protocol's connection for it. */
  accept(socket: Socket): C;
}

export async function listenSocket<C extends { shutdown(): void }>(protocol: SocketProtocol<C>, port: number, bind: string, tls: TlsOptions | null): Promise<OpenListener> {
  const connections = new Set<C>();
  const accept = (socket: Socket): void => {
    socket.setNoDelay(true);
    const c = protocol.accept(socket);
    connections.add(c);
    socket.on("close", () => connections.delete(c));
  };
  const server: Server =
    tls !== null
      ? createTlsServer({ handshakeTimeout: protocol.handshakeTimeoutMs, ...tls }, accept)
      : protocol.readsIntoSlabs
        ? createServer({ pauseOnConnect: true }, acceptIntoSlabs(accept))
        : createServer(accept);
  if (tls !== null) server.on("tlsClientError", (err) => protocol.log.info(`${protocol.tlsName} handshake failed`, { err: err.message }));
  const bound = await listenOn(server, port, bind);
  server.on("error", (err) => protocol.log.error(`${protocol.name} listener error`, { err }));
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of connections) c.shutdown();
        server.close(() => resolve());
      }),
  };
}
