/**
 * STOMP over WebSocket (rabbitmq_web_stomp): an HTTP listener (web_stomp.tcp.port, 15674) that
 * upgrades requests for /ws, offering the STOMP subprotocols (v12.stomp, v11.stomp, v10.stomp);
 * each WebSocket becomes a StompConnection, frames arriving in its messages and leaving one per
 * message. Other paths are refused with 404. A side listener like the TCP one.
 */
import { createServer, type IncomingMessage, type RequestListener } from "node:http";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import { peerOf } from "../auth/peer-address.js";
import { listenOn } from "../listeners/listen-on.js";
import type { OpenListener } from "../listeners/side-listeners.js";
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

export async function listenWebStomp(node: StompNode, port: number, bind: string): Promise<OpenListener> {
  const connections = new Set<StompConnection>();
  const notFound: RequestListener = (_req, res) => {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("Not found: STOMP over WebSocket is served at /ws\n");
  };
  const http = createServer(notFound);
  const wss = new WebSocketServer({
    server: http,
    path: WEB_STOMP_PATH,
    handleProtocols: (offered) => SUBPROTOCOLS.find((p) => offered.has(p)) ?? false,
  });
  // ws re-emits the HTTP server's errors (a port in use): the listen below reports them.
  wss.on("error", (err) => node.log.debug("Web STOMP server error", { err: err.message }));
  wss.on("connection", (ws: WebSocket, req: IncomingMessage) => {
    const peer = { ...peerOf(req.socket, false), protocolName: "Web STOMP" as const, certName: null };
    const output = new WebSocketOutput(ws);
    const c = new StompConnection(node, { output, pause: () => ws.pause(), resume: () => ws.resume() }, peer);
    connections.add(c);
    ws.on("message", (data: RawData) => c.data(bytesOf(data)));
    ws.on("error", (err) => node.log.debug("Web STOMP socket error", { err: err.message }));
    ws.on("close", () => {
      connections.delete(c);
      c.closed();
    });
  });
  const bound = await listenOn(http, port, bind);
  http.on("error", (err) => node.log.error("Web STOMP listener error", { err }));
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
