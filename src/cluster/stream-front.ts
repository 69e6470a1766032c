/**
 * Every node's stream port (docs/STREAMS.md, "Followers serve the stream port"). While a node
 * does not lead, its stream listener is this front: each client gets a FrontConnection, which
 * forwards to the leader's stream listener what only the leader can do and serves subscriptions
 * from this node's own files. When the node is elected, the front stops listening (the leader's
 * broker binds the same port) but keeps its connections: their subscriptions go on reading the
 * same files, now written by this node, and their next upstream is this node's own broker. When
 * the node stops leading, the front listens again on the same port.
 */
import { createServer, type AddressInfo, type Server } from "node:net";
import type { Logger } from "../logging/logger.js";
import type { StreamCommits } from "./stream-commits.js";
import { FrontConnection, type FrontHost } from "./stream-front-connection.js";
import type { UpstreamEndpoint } from "./stream-front-upstream.js";

export class StreamFront {
  /** The stream port, fixed by its first bind (0 asks for an ephemeral one); null: none bound yet. */
  port: number | null = null;
  private server: Server | null = null;
  private readonly connections = new Set<FrontConnection>();
  private target: UpstreamEndpoint | null = null;
  private readonly host: FrontHost;

  constructor(
    private readonly wanted: number,
    private readonly bind: string,
    dataDir: string,
    commits: StreamCommits,
    waitMs: number,
    private readonly log: Logger,
    /** This node's advertised stream endpoint (null until its port is bound). */
    advertised: () => UpstreamEndpoint | null,
  ) {
    this.host = { dataDir, commits, log, waitMs, advertised, leader: () => this.target, forget: (c) => this.connections.delete(c) };
  }

  /** Open client connections (tests look at their local subscriptions). */
  get clients(): ReadonlySet<FrontConnection> {
    return this.connections;
  }

  /** Listens (again) on the stream port; a port that cannot be bound is logged, and the node serves on without it. */
  async listen(): Promise<void> {
    if (this.server !== null) return;
    const server = createServer((socket) => this.connections.add(new FrontConnection(socket, this.host)));
    const port = this.port ?? this.wanted;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, this.bind === "" ? undefined : this.bind, () => {
          server.off("error", reject);
          resolve();
        });
      });
    } catch (err) {
      this.log.error("cluster: stream port could not be bound", { port, err: (err as Error).message });
      return;
    }
    server.on("error", (err) => this.log.error("cluster: stream front listener error", { err: err.message }));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  /** Frees the port for the leader's broker; the open connections stay. */
  async stopListening(): Promise<void> {
    const server = this.server;
    this.server = null;
    // close()'s callback waits for every accepted connection to end; the port itself is free at once.
    if (server !== null) server.close();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** The leader's stream listener (null: none known); connections without an upstream connect to it. */
  setLeader(target: UpstreamEndpoint | null): void {
    if (target?.host === this.target?.host && target?.port === this.target?.port) return;
    this.target = target;
    if (target !== null) for (const c of this.connections) c.leaderChanged();
  }

  async close(): Promise<void> {
    for (const c of [...this.connections]) c.close();
    await this.stopListening();
  }
}
