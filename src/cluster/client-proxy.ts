/**
 * A follower's client listeners (docs/CLUSTERING.md, "Clients"): each connection accepted on the
 * AMQP, AMQPS or HTTP port is piped byte for byte to the same listener of the current leader.
 * TLS is not terminated here. When the leader changes, every piped connection is closed (clients
 * reconnect); a connection that arrives while no leader is known waits up to `waitMs` for one.
 * On the HTTP port a `local` responder may first look at the connection's first request head and
 * answer it itself (the follower's own health checks, local-health.ts); otherwise every byte it
 * looked at is forwarded as it came. TLS connections are not looked into.
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import { MAX_REQUEST_HEAD, parseRequestHead, type RequestHead } from "./request-head.js";

/** The whole response to a first request this node answers itself; null to forward it. */
export type LocalResponder = (head: RequestHead, remoteAddress: string) => string | null;

export type ClientPortKind = "amqp" | "amqps" | "http";

export interface ProxyTarget {
  readonly host: string;
  readonly ports: Readonly<Partial<Record<ClientPortKind, number>>>;
}

export class ClientProxy {
  private readonly servers: Server[] = [];
  private readonly piped = new Set<Socket>();
  private target: ProxyTarget | null = null;
  private waiting: Array<() => void> = [];

  constructor(
    private readonly waitMs: number,
    private readonly local: LocalResponder | null = null,
  ) {}

  /** Listens on each port (0 = ephemeral); resolves with the bound ports. */
  async listen(ports: Partial<Record<ClientPortKind, number>>, bind: string): Promise<Partial<Record<ClientPortKind, number>>> {
    const bound: Partial<Record<ClientPortKind, number>> = {};
    for (const [kind, port] of Object.entries(ports) as Array<[ClientPortKind, number]>) {
      const server = createServer((s) => this.accept(kind, s));
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
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    this.servers.length = 0;
  }

  private dropAll(): void {
    for (const s of this.piped) s.destroy();
    this.piped.clear();
  }

  private accept(kind: ClientPortKind, client: Socket): void {
    client.on("error", () => undefined);
    this.piped.add(client);
    client.on("close", () => this.piped.delete(client));
    if (kind === "http" && this.local !== null) return this.peek(client, this.local);
    this.forward(kind, client);
  }

  /** Reads the first request head (bounded in size and time), answers it or forwards it all. */
  private peek(client: Socket, local: LocalResponder): void {
    let head: Buffer = Buffer.alloc(0);
    const onData = (d: Buffer): void => {
      head = head.length === 0 ? d : Buffer.concat([head, d]);
      if (head.indexOf("\r\n\r\n") >= 0 || head.length > MAX_REQUEST_HEAD) decide();
    };
    const timer = setTimeout(() => decide(), this.waitMs);
    const decide = (): void => {
      clearTimeout(timer);
      client.off("data", onData);
      client.pause();
      if (client.destroyed) return;
      const parsed = parseRequestHead(head);
      const answer = parsed === null ? null : local(parsed, client.remoteAddress ?? "");
      if (answer !== null) return void client.end(answer);
      if (head.length > 0) client.unshift(head);
      this.forward("http", client);
    };
    client.on("data", onData);
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
