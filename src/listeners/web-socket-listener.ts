/**
 * A protocol over WebSocket (RabbitMQ's Web MQTT and Web STOMP): an HTTP listener, or with TLS
 * options an HTTPS one, that upgrades requests for one path with the subprotocol the protocol
 * picks, and hands each accepted WebSocket to the protocol, which makes its connection of it.
 * Other paths get 404. What the listener owns: the servers, the connections it accepted (shut
 * down when it closes), and the rule that a server error never goes unheard (ws re-emits the
 * HTTP server's errors, and an unheard "error" would crash the process).
 */
import { createServer, type IncomingMessage, type RequestListener } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { TlsOptions } from "node:tls";
import { WebSocketServer, type WebSocket } from "ws";
import type { Logger } from "../logging/logger.js";
import { listenOn } from "./listen-on.js";
import type { OpenListener } from "./side-listeners.js";

export interface WebSocketProtocol<C extends { shutdown(): void }> {
  /** As named in texts: "MQTT", "STOMP". */
  readonly name: string;
  readonly path: string;
  readonly log: Logger;
  /** With TLS: the handshake's time limit. */
  readonly handshakeTimeoutMs: number;
  /** The subprotocol answered from those the client offered; false refuses the upgrade. */
  handleProtocols(offered: Set<string>): string | false;
  /** An accepted WebSocket: the protocol's connection for it. */
  accept(ws: WebSocket, req: IncomingMessage): C;
}

export async function listenWebSocket<C extends { shutdown(): void }>(protocol: WebSocketProtocol<C>, port: number, bind: string, tls: TlsOptions | null): Promise<OpenListener> {
  const connections = new Set<C>();
  const notFound: RequestListener = (_req, res) => {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end(`Not found: ${protocol.name} over WebSocket is served at ${protocol.path}\n`);
  };
  const http = tls === null ? createServer(notFound) : createHttpsServer({ handshakeTimeout: protocol.handshakeTimeoutMs, ...tls }, notFound);
  const wss = new WebSocketServer({ server: http, path: protocol.path, handleProtocols: (offered) => protocol.handleProtocols(offered) });
  // The listen below reports a bind failure; this only keeps the re-emitted error heard.
  wss.on("error", (err) => protocol.log.debug(`Web ${protocol.name} server error`, { err: err.message }));
  wss.on("connection", (ws: WebSocket, req: IncomingMessage) => {
    const c = protocol.accept(ws, req);
    connections.add(c);
    ws.on("close", () => connections.delete(c));
  });
  const bound = await listenOn(http, port, bind);
  http.on("error", (err) => protocol.log.error(`Web ${protocol.name} listener error`, { err }));
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of connections) c.shutdown();
        wss.close();
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
