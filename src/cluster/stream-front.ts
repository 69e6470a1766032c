/**
 * Every node's stream ports (docs/STREAMS.md, "Followers serve the stream port"). While a node
 * does not lead, its stream listeners (the plain one and, with a certificate, the TLS one) are this
 * front: each client gets a FrontConnection, which forwards to the leader's plain stream listener
 * what only the leader can do and serves subscriptions from this node's own files. When the node
 * is elected, the front stops listening (the leader's broker binds the same ports) but keeps its
 * connections: their subscriptions go on reading the same files, now written by this node, and
 * their next upstream is this node's own broker. When the node stops leading, the front listens
 * again on the same ports.
 */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { createServer as createTlsServer, type TlsOptions } from "node:tls";
import type { Logger } from "../logging/logger.js";
import type { StreamCommits } from "./stream-commits.js";
import { FrontConnection, type FrontHost } from "./stream-front-connection.js";
import type { UpstreamEndpoint } from "./stream-front-upstream.js";
import type { TlsPortOf } from "./stream-front-metadata.js";

/** Where this node tells stream clients to connect: its advertised host, plain port and TLS port. */
export interface AdvertisedStream {
  readonly host: string;
  readonly port: number;
  readonly tlsPort: number | null;
}

interface FrontListener {
  readonly tls: TlsOptions | null;
  readonly wanted: number;
  /** Fixed by its first bind (0 asks for an ephemeral port); null until bound. */
  port: number | null;
  server: Server | null;
}

export class StreamFront {
  private readonly plain: FrontListener;
  private readonly secure: FrontListener | null;
  private readonly connections = new Set<FrontConnection>();
  private target: UpstreamEndpoint | null = null;

  constructor(
    wanted: { readonly port: number; readonly tlsPort: number | null; readonly tls: TlsOptions | null },
    private readonly bind: string,
    private readonly dataDir: string,
    private readonly commits: StreamCommits,
    private readonly waitMs: number,
    private readonly log: Logger,
    /** This node's advertised stream endpoint (null until its port is bound). */
    private readonly advertised: () => AdvertisedStream | null,
    /** A node's TLS stream port by its advertised plain endpoint (the cluster's members). */
    private readonly tlsPortOf: TlsPortOf,
  ) {
    this.plain = { tls: null, wanted: wanted.port, port: null, server: null };
    this.secure = wanted.tls !== null && wanted.tlsPort !== null ? { tls: wanted.tls, wanted: wanted.tlsPort, port: null, server: null } : null;
  }

  /** The plain stream port as bound; null until it is. */
  get port(): number | null {
    return this.plain.port;
  }

  /** The TLS stream port as bound; null without TLS or until it is bound. */
  get tlsPort(): number | null {
    return this.secure?.port ?? null;
  }

  /** Open client connections (tests look at their local subscriptions). */
  get clients(): ReadonlySet<FrontConnection> {
    return this.connections;
  }

  /** Listens (again) on the stream ports; a port that cannot be bound is logged, and the node serves on without it. */
  async listen(): Promise<void> {
    await this.open(this.plain);
    if (this.secure !== null) await this.open(this.secure);
  }

  /** Frees the ports for the leader's broker; the open connections stay. */
  async stopListening(): Promise<void> {
    for (const l of [this.plain, this.secure]) {
      // close()'s callback waits for every accepted connection to end; the port itself is free at once.
      l?.server?.close();
      if (l) l.server = null;
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** The leader's plain stream listener (null: none known); connections without an upstream connect to it. */
  setLeader(target: UpstreamEndpoint | null): void {
    if (target?.host === this.target?.host && target?.port === this.target?.port) return;
    this.target = target;
    if (target !== null) for (const c of this.connections) c.leaderChanged();
  }

  async close(): Promise<void> {
    for (const c of [...this.connections]) c.close();
    await this.stopListening();
  }

  private host(tls: boolean): FrontHost {
    return {
      dataDir: this.dataDir,
      commits: this.commits,
      log: this.log,
      waitMs: this.waitMs,
      advertised: () => {
        const a = this.advertised();
        const port = a === null ? null : tls ? a.tlsPort : a.port;
        return a === null || port === null ? null : { host: a.host, port };
      },
      leader: () => this.target,
      forget: (c) => this.connections.delete(c),
      tlsPortOf: tls ? this.tlsPortOf : null,
    };
  }

  private async open(l: FrontListener): Promise<void> {
    if (l.server !== null) return;
    const host = this.host(l.tls !== null);
    const accept = (socket: Socket): void => void this.connections.add(new FrontConnection(socket, host));
    const server = l.tls === null ? createServer(accept) : createTlsServer(l.tls, accept);
    if (l.tls !== null) server.on("tlsClientError", (err: Error) => this.log.info("cluster: stream TLS handshake failed", { err: err.message }));
    const port = l.port ?? l.wanted;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, this.bind === "" ? undefined : this.bind, () => {
          server.off("error", reject);
          resolve();
        });
      });
    } catch (err) {
      this.log.error("cluster: stream port could not be bound", { port, tls: l.tls !== null, err: (err as Error).message });
      return;
    }
    server.on("error", (err) => this.log.error("cluster: stream front listener error", { err: err.message }));
    l.server = server;
    l.port = (server.address() as AddressInfo).port;
  }
}
