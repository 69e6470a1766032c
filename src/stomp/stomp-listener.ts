/**
 * The STOMP listener (rabbitmq_stomp's stomp.listeners.tcp.default, 61613), or with TLS options
 * the STOMP-over-TLS one (stomp.listeners.ssl.default, 61614, the node's certificate): each
 * accepted socket becomes a StompConnection. A side listener (stomp-startup.ts).
 */
import { createServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer, type TlsOptions } from "node:tls";
import { peerOf } from "../auth/peer-address.js";
import { listenOn } from "../listeners/listen-on.js";
import type { OpenListener } from "../listeners/side-listeners.js";
import { certLoginName } from "../tls/cert-login-name.js";
import { SocketOutput } from "./frame-output.js";
import { StompConnection } from "./stomp-connection.js";
import type { StompNode } from "./stomp-node.js";

export async function listenStomp(node: StompNode, port: number, bind: string, tls: TlsOptions | null = null): Promise<OpenListener> {
  const connections = new Set<StompConnection>();
  const accept = (socket: Socket): void => {
    socket.setNoDelay(true);
    const peer = { ...peerOf(socket, tls !== null), protocolName: "STOMP" as const, certName: tls !== null ? certLoginName(socket, node.settings.sslCertLoginFrom) : null };
    const output = new SocketOutput(socket);
    const c = new StompConnection(node, { output, pause: () => socket.pause(), resume: () => socket.resume() }, peer);
    connections.add(c);
    socket.on("data", (chunk: Buffer) => c.data(chunk));
    socket.on("drain", () => c.drained());
    socket.on("error", (err) => node.log.debug("STOMP socket error", { err: err.message }));
    socket.on("close", () => {
      connections.delete(c);
      c.closed();
    });
  };
  const server: Server = tls ? createTlsServer({ handshakeTimeout: node.settings.connectTimeout * 1000, ...tls }, accept) : createServer(accept);
  if (tls) server.on("tlsClientError", (err) => node.log.info("STOMP over TLS handshake failed", { err: err.message }));
  const bound = await listenOn(server, port, bind);
  server.on("error", (err) => node.log.error("STOMP listener error", { err }));
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of connections) c.shutdown();
        server.close(() => resolve());
      }),
  };
}
