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
import { createServer, type AddressInfo, type Socket } from "node:net";
import { createServer as createTlsServer, type TlsOptions } from "node:tls";
import { vouchForCertificate } from "../auth/forwarded-certificate.js";
import { peerOf } from "../auth/peer-address.js";
import type { Logger } from "../logging/logger.js";
import { certLoginName, type CertLoginFrom } from "../tls/cert-login-name.js";
import type { StreamCommits } from "./stream-commits.js";
import { FrontConnection, type FrontHost } from "./stream-front-connection.js";
import type { UpstreamEndpoint } from "./stream-front-upstream.js";
import type { TlsPortOf } from "./stream-front-metadata.js";
import { SideListeners, type OpenListener } from "../listeners/side-listeners.js";
import type { ListenerStatus } from "../listeners/listener-status.js";

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
}

export class StreamFront {
  private readonly plain: FrontListener;
  private readonly secure: FrontListener | null;
  private readonly connections = new Set<FrontConnection>();
  private target: UpstreamEndpoint | null = null;
  /** Set once the node has registered its ports: a port bound later must be registered again. */
  registered = false;
  /** The listeners while the node does not lead: side listeners, retried when a port is taken (src/listeners). */
  private side: SideListeners | null = null;

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
    /** A port was bound after a retry: the node registers it (its members' key names its ports). */
    private readonly boundLate: () => void = () => undefined,
    /** SASL EXTERNAL for TLS clients: which certificate name logs in, and the cluster's secret to vouch with; null: not offered. */
    private readonly vouching: { readonly from: CertLoginFrom; secret(): Buffer } | null = null,
  ) {
    this.plain = { tls: null, wanted: wanted.port, port: null };
    this.secure = wanted.tls !== null && wanted.tlsPort !== null ? { tls: wanted.tls, wanted: wanted.tlsPort, port: null } : null;
  }

  /** The plain stream port as bound; null until it is. */
  get port(): number | null {
    return this.plain.port;
  }

  /** The TLS stream port as bound; null without TLS or until it is bound. */
  get tlsPort(): number | null {
    return this.secure?.port ?? null;
  }

  /** Listens (again) on the stream ports: side listeners, so a port that cannot be bound is retried while the node serves on. */
  async listen(): Promise<void> {
    if (this.side !== null) return;
    const side = new SideListeners(this.log);
    this.side = side;
    for (const l of this.secure === null ? [this.plain] : [this.plain, this.secure]) {
      await side.add({
        protocol: l.tls === null ? "stream" : "stream/ssl",
        port: l.port ?? l.wanted,
        open: () => this.open(l),
        opened: (o) => {
          if (this.side !== side) return;
          const late = l.port === null && this.registered;
          l.port = o.port;
          if (late) this.boundLate();
        },
      });
    }
  }

  /** Its listeners, bound or being retried (the follower's coney_listener_up). */
  statuses(): ListenerStatus[] {
    return this.side?.statuses() ?? [];
  }

  /** Frees the ports for the leader's broker (and stops retrying them); the open connections stay. */
  async stopListening(): Promise<void> {
    const side = this.side;
    this.side = null;
    await side?.close();
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

  /** The login this node vouches for a TLS client whose certificate it verified (stream-front-external.ts); null without one. */
  private vouchFor(socket: Socket): Buffer | null {
    const name = this.vouching === null ? null : certLoginName(socket, this.vouching.from);
    return name === null || this.vouching === null ? null : vouchForCertificate(this.vouching.secret(), name, peerOf(socket, true).isLoopback);
  }

  private async open(l: FrontListener): Promise<OpenListener> {
    const host = this.host(l.tls !== null);
    const accept = (socket: Socket): void => void this.connections.add(new FrontConnection(socket, host, l.tls === null ? null : this.vouchFor(socket)));
    const server = l.tls === null ? createServer(accept) : createTlsServer(l.tls, accept);
    if (l.tls !== null) server.on("tlsClientError", (err: Error) => this.log.info("cluster: stream TLS handshake failed", { err: err.message }));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(l.port ?? l.wanted, this.bind === "" ? undefined : this.bind, () => {
        server.off("error", reject);
        resolve();
      });
    });
    server.on("error", (err) => this.log.error("cluster: stream front listener error", { err: err.message }));
    return {
      port: (server.address() as AddressInfo).port,
      // close()'s callback waits for every accepted connection to end; the port itself is free at once.
      close: () => {
        server.close();
        return new Promise<void>((resolve) => setImmediate(resolve));
      },
    };
  }
}
