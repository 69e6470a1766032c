/**
 * A follower's management port (docs/CLUSTERING.md, "Clients"): HTTP terminated here, request by
 * request. A request for a health check only this node can answer (local-health.ts) is answered
 * here; every other request is forwarded to the leader's management port, body streamed both
 * ways, over a keep-alive agent. Deciding per request (not per connection) matters: a health
 * checker that keeps its connection alive must never be told by the leader that a follower leads.
 * With `--http-tls` this port terminates TLS with the node's certificate and forwards over TLS,
 * verifying the leader's certificate against `--tls-ca` (or the system's CAs).
 */
import { Agent as HttpAgent, createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Agent as HttpsAgent, createServer as createHttpsServer, request as httpsRequest } from "node:https";
import { readFileSync } from "node:fs";
import { tlsServerOptions, type TlsFiles } from "../tls/tls-files.js";
import type { RequestHead } from "./request-head.js";

/** This node's own answer to a request, or null to forward it to the leader. */
export interface LocalAnswer {
  readonly status: number;
  /** JSON body; null for none. */
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}
export type LocalResponder = (head: RequestHead, remoteAddress: string) => Promise<LocalAnswer | null> | LocalAnswer | null;

/** Where the leader's management port is; null while no leader is known. */
export type LeaderAddress = () => { host: string; port: number } | null;

/** How long a request waits for a leader to be known before it is answered 502. */
const NO_LEADER_POLL_MS = 50;

export function createFollowerHttp(local: LocalResponder | null, leader: LeaderAddress, waitMs: number, tls: TlsFiles | null): Server {
  const agentOptions = { keepAlive: true, maxSockets: 256 };
  const agent = tls ? new HttpsAgent({ ...agentOptions, ...(tls.ca ? { ca: readFileSync(tls.ca) } : {}) }) : new HttpAgent(agentOptions);
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    void serve(req, res).catch(() => {
      if (!res.headersSent) send(res, 502, { error: "bad_gateway", reason: "the request could not be forwarded to the cluster leader" });
      else res.destroy();
    });
  };
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (local !== null) {
      const answer = await local(headOf(req), req.socket.remoteAddress ?? "");
      if (answer !== null) return void send(res, answer.status, req.method === "HEAD" ? null : answer.body, answer.headers);
    }
    const target = await waitForLeader(leader, waitMs);
    if (target === null) return void send(res, 502, { error: "bad_gateway", reason: "no cluster leader is known" });
    forward(req, res, target, agent, tls !== null);
  };
  const server = tls ? createHttpsServer(tlsServerOptions(tls), handle) : createHttpServer(handle);
  server.keepAliveTimeout = 30_000;
  server.on("close", () => agent.destroy());
  return server;
}

function headOf(req: IncomingMessage): RequestHead {
  const target = req.url ?? "/";
  const q = target.indexOf("?");
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  return { method: req.method ?? "GET", path: q < 0 ? target : target.slice(0, q), headers };
}

async function waitForLeader(leader: LeaderAddress, waitMs: number): Promise<{ host: string; port: number } | null> {
  const deadline = performance.now() + waitMs;
  for (let t = leader(); ; t = leader()) {
    if (t !== null || performance.now() >= deadline) return t;
    await new Promise((r) => setTimeout(r, NO_LEADER_POLL_MS));
  }
}

function forward(req: IncomingMessage, res: ServerResponse, target: { host: string; port: number }, agent: HttpAgent, secure: boolean): void {
  const options = { host: target.host, port: target.port, method: req.method, path: req.url, headers: req.headers, agent, ...(secure ? { servername: isIp(target.host) ? undefined : target.host } : {}) };
  const upstream = (secure ? httpsRequest : httpRequest)(options, (up) => {
    res.writeHead(up.statusCode ?? 502, up.statusMessage, up.headers);
    up.pipe(res);
  });
  upstream.on("error", () => {
    if (!res.headersSent) send(res, 502, { error: "bad_gateway", reason: "the cluster leader did not answer" });
    else res.destroy();
  });
  req.pipe(upstream);
}

function send(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  const text = body === null || body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), "cache-control": "no-cache", ...headers });
  res.end(text);
}

const isIp = (host: string): boolean => /^[\d.]+$/.test(host) || host.includes(":");
