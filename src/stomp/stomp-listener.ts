/**
 * The STOMP listener (rabbitmq_stomp's stomp.listeners.tcp.default, 61613), or with TLS options
 * the STOMP-over-TLS one (stomp.listeners.ssl.default, 61614, the node's certificate): each
 * accepted socket becomes a StompConnection (the listener itself: src/listeners/socket-listener.ts).
 * A side listener (stomp-startup.ts).
 */
import type { TlsOptions } from "node:tls";
import { peerOf } from "../auth/peer-address.js";
import { listenSocket } from "../listeners/socket-listener.js";
import type { OpenListener } from "../listeners/side-listeners.js";
import { certLoginName } from "../tls/cert-login-name.js";
import { SocketOutput } from "./frame-output.js";
import { StompConnection } from "./stomp-connection.js";
import type { StompNode } from "./stomp-node.js";

export function listenStomp(node: StompNode, port: number, bind: string, tls: TlsOptions | null = null): Promise<OpenListener> {
  return listenSocket<StompConnection>(
    {
      name: "STOMP",
      tlsName: "STOMP over TLS",
      log: node.log,
      handshakeTimeoutMs: node.settings.connectTimeout * 1000,
      readsIntoSlabs: false,
      accept: (socket) => {
        const peer = { ...peerOf(socket, tls !== null), protocolName: "STOMP" as const, certName: tls !== null ? certLoginName(socket, node.settings.sslCertLoginFrom) : null };
        const c = new StompConnection(node, { output: new SocketOutput(socket), pause: () => socket.pause(), resume: () => socket.resume() }, peer);
        socket.on("data", (chunk: Buffer) => c.data(chunk));
        socket.on("drain", () => c.drained());
        socket.on("error", (err) => node.log.debug("STOMP socket error", { err: err.message }));
        socket.on("close", () => c.closed());
        return c;
      },
    },
    port,
    bind,
    tls,
  );
}
