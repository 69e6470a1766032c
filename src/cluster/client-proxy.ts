/**
 * A follower's client listeners (docs/CLUSTERING.md, "Clients"): each connection accepted on a
 * client port (AMQP 0-9-1 and 1.0, AMQPS, MQTT, MQTTS, Web MQTT, STOMP, STOMP over TLS, Web
 * STOMP; client-ports.ts) is piped byte for byte to the same listener of the current leader (TLS
 * is not terminated: certificates are the leader's; a WebSocket upgrade is bytes like any other). When the leader changes, every piped connection
 * is closed (clients reconnect); a connection that arrives while no leader is known waits up to
 * `waitMs` for one. The HTTP port is served per request by follower-http.ts: the follower's own
 * health checks answered here, everything else forwarded to the leader.
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import type { Server as HttpServer } from "node:http";
import type { TlsFiles } from "../tls/tls-files.js";
import { createFollowerHttp, type LocalResponder } from "./follower-http.js";
import type { ClientPortKind, ClientPorts } from "./client-ports.js";

export type { LocalResponder };

export interface ProxyTarget {
  readonly host: string;
  readonly ports: Readonly<ClientPorts>;
}

export class ClientProxy {
  private readonly servers: Array<Server | HttpServer> = [];
  private readonly piped = new Set<Socket>();
  private target: ProxyTarget | null = null;
  private waiting: Array<() => void> = [];

  constructor(
    private readonly waitMs: number,
    private readonly local: LocalResponder | null = null,
    /** The management port's TLS (`--http-tls`): terminated here, and used towards the leader. */
    private readonly httpTls: TlsFiles | null = null,
  ) {}

  /** Listens for one kind of client (0 = ephemeral); the handle closes that listener only. */
  async listenOne(kind: ClientPortKind, port: number, bind: string): Promise<{ port: number; close(): Promise<void> }> {
    const server = kind === "http" ? this.httpServer() : createServer((s) => this.accept(kind, s));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, bind === "" ? undefined : bind, () => {
        server.off("error", reject);
        resolve();
      });
    });
    this.servers.push(server);
    const a = server.address();
    return {
      port: typeof a === "object" && a ? a.port : port,
      close: async () => {
        const i = this.servers.indexOf(server);
        if (i >= 0) this.servers.splice(i, 1);
        await closeServer(server);
      },
    };
  }

  /** The leader to forward to; a different one closes every piped connection. */
  setTarget(target: ProxyTarget | null): void {
    const same = target !== null && this.target !== null && target.host === this.target.host && JSON.stringify(target.ports) === JSON.stringify(this.target.ports);
    if (same) return;
    this.target = target;
    this.dropAll();
    if (target) {
      const w = this.waiting;
      this.waiting = [];
      for (const go of w) go();
    }
  }

  get connections(): number {
    return this.piped.size;
  }

  async close(): Promise<void> {
    this.dropAll();
    for (const go of this.waiting) go();
    this.waiting = [];
    await Promise.all(this.servers.map(closeServer));
    this.servers.length = 0;
  }

  private dropAll(): void {
    for (const s of this.piped) s.destroy();
    this.piped.clear();
  }

  private httpServer(): HttpServer {
    const leader = (): { host: string; port: number } | null => {
      const port = this.target?.ports.http;
      return this.target && port !== undefined ? { host: this.target.host, port } : null;
    };
    return createFollowerHttp(this.local, leader, this.waitMs, this.httpTls);
  }

  private accept(kind: ClientPortKind, client: Socket): void {
    client.on("error", () => undefined);
    this.piped.add(client);
    client.on("close", () => this.piped.delete(client));
    this.forward(kind, client);
  }

  private forward(kind: ClientPortKind, client: Socket): void {
    if (this.target) return this.pipe(kind, client);
    const timer = setTimeout(() => client.destroy(), this.waitMs);
    client.pause();
    this.waiting.push(() => {
      clearTimeout(timer);
      if (this.target && !client.destroyed) this.pipe(kind, client);
      else client.destroy();
    });
  }

  private pipe(kind: ClientPortKind, client: Socket): void {
    const port = this.target?.ports[kind];
    if (!this.target || port === undefined) return void client.destroy();
    const upstream = connect({ host: this.target.host, port });
    upstream.setNoDelay(true);
    client.setNoDelay(true);
    this.piped.add(upstream);
    upstream.on("close", () => {
      this.piped.delete(upstream);
      client.destroy();
    });
    upstream.on("error", () => undefined);
    client.on("close", () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  }
}

/** Stops listening; an HTTP server's kept-alive connections would hold its close open, so they end now too. */
function closeServer(s: Server | HttpServer): Promise<void> {
  return new Promise<void>((resolve) => {
    s.close(() => resolve());
    if ("closeAllConnections" in s) s.closeAllConnections();
  });
}
