/**
 * A follower's client listeners (docs/CLUSTERING.md, "Clients"): each connection accepted on the
 * AMQP or AMQPS port is piped byte for byte to the same listener of the current leader (TLS is
 * not terminated: certificates are the leader's). When the leader changes, every piped connection
 * is closed (clients reconnect); a connection that arrives while no leader is known waits up to
 * `waitMs` for one. The HTTP port is served per request by follower-http.ts: the follower's own
 * health checks answered here, everything else forwarded to the leader.
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import type { Server as HttpServer } from "node:http";
import type { TlsFiles } from "../tls/tls-files.js";
import { createFollowerHttp, type LocalResponder } from "./follower-http.js";

export type { LocalResponder };

export type ClientPortKind = "amqp" | "amqps" | "http";

export interface ProxyTarget {
  readonly host: string;
  readonly ports: Readonly<Partial<Record<ClientPortKind, number>>>;
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

  /** Listens on each port (0 = ephemeral); resolves with the bound ports. */
  async listen(ports: Partial<Record<ClientPortKind, number>>, bind: string): Promise<Partial<Record<ClientPortKind, number>>> {
    const bound: Partial<Record<ClientPortKind, number>> = {};
    for (const [kind, port] of Object.entries(ports) as Array<[ClientPortKind, number]>) {
      const server = kind === "http" ? this.httpServer() : createServer((s) => this.accept(kind, s));
      try {
        await new Promise<void>((resolve, reject) => {
          server.once("error", reject);
          server.listen(port, bind === "" ? undefined : bind, () => resolve());
        });
      } catch (err) {
        // All ports or none: a half-listening proxy would hold ports the leader's broker needs.
        await this.close();
        throw err;
      }
      const a = server.address();
      bound[kind] = typeof a === "object" && a ? a.port : port;
      this.servers.push(server);
    }
    return bound;
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
    // An HTTP server's kept-alive connections would hold its close open: they end now, like piped ones.
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => {
      s.close(() => resolve());
      if ("closeAllConnections" in s) s.closeAllConnections();
    })));
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
