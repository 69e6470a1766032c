/**
 * STOMP over WebSocket (rabbitmq_web_stomp): an HTTP listener (web_stomp.tcp.port, 15674) that
 * upgrades requests for /ws, offering the STOMP subprotocols (v12.stomp, v11.stomp, v10.stomp;
 * listeners/web-socket-listener.ts); each WebSocket becomes a StompConnection, frames arriving in
 * its messages and leaving one per message. A side listener like the TCP one.
 */
import type { RawData } from "ws";
import { peerOf } from "../auth/peer-address.js";
import type { OpenListener } from "../listeners/side-listeners.js";
import { listenWebSocket } from "../listeners/web-socket-listener.js";
import { WebSocketOutput } from "./frame-output.js";
import { StompConnection } from "./stomp-connection.js";
import type { StompNode } from "./stomp-node.js";

export const WEB_STOMP_PATH = "/ws";
const SUBPROTOCOLS = ["v12.stomp", "v11.stomp", "v10.stomp", "stomp"];

function bytesOf(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

export function listenWebStomp(node: StompNode, port: number, bind: string): Promise<OpenListener> {
  return listenWebSocket<StompConnection>(
    {
      name: "STOMP",
      path: WEB_STOMP_PATH,
      log: node.log,
      handshakeTimeoutMs: 0,
      handleProtocols: (offered) => SUBPROTOCOLS.find((p) => offered.has(p)) ?? false,
      accept: (ws, req) => {
        const peer = { ...peerOf(req.socket, false), protocolName: "Web STOMP" as const, certName: null };
        const c = new StompConnection(node, { output: new WebSocketOutput(ws), pause: () => ws.pause(), resume: () => ws.resume() }, peer);
        ws.on("message", (data: RawData) => c.data(bytesOf(data)));
        ws.on("error", (err) => node.log.debug("Web STOMP socket error", { err: err.message }));
        ws.on("close", () => c.closed());
        return c;
      },
    },
    port,
    bind,
    null,
  );
}
