/**
 * The writer of one store of a spread cluster (docs/CLUSTERING.md, "Stage 2"): a node's own store,
 * or one it adopted. It is the replicated cluster's `ReplicationLeader` on that store's directory,
 * with a replication listener of its own (its port is in the store's `owner` key, so a follower
 * never mixes two writers' bytes) and in-sync writes guarded by its epoch: the mod revision of its
 * put of `owner`. A writer whose key expired or was replaced can change nothing in etcd, and its
 * confirms follow the lease rule of "The confirm rule".
 */
import type { Server } from "node:net";
import type { Logger } from "../logging/logger.js";
import { withTimeout, type EtcdSession } from "./etcd-session.js";
import { ReplicationLeader } from "./replication-leader.js";
import type { ReplicationTransport } from "./replication-transport.js";
import type { SpreadKeys, StoreInSync, StoreOwner } from "./spread-keys.js";
import type { LinkedFollower } from "./spread-machines.js";

export interface WriterContext {
  readonly me: string;
  readonly host: string;
  readonly bind: string;
  readonly session: EtcdSession;
  readonly keys: SpreadKeys;
  readonly secret: Buffer;
  readonly transport: ReplicationTransport;
  readonly logger: Logger;
  /** --replica-ack-timeout (ms). */
  readonly ackTimeoutMs: number;
  minInSync(): number;
  /** The machine rule (spread-machines.ts) for a writer in this process. */
  placed(inSync: ReadonlySet<string>, connected: ReadonlyMap<string, LinkedFollower>): boolean;
}

export class StoreWriter {
  readonly replication: ReplicationLeader;
  private server: Server | null = null;
  private port = 0;
  /** The mod revision of this writer's `owner` put; 0 until claimed (see claimed). */
  epoch = 0;
  /** The lease `owner` was put under: a new lease of the session (a re-grant) is not one this writer may confirm under. */
  private lease = "";

  constructor(
    readonly store: string,
    readonly dataDir: string,
    private readonly ctx: WriterContext,
    /** The lease is gone or etcd refused a guarded write: this writer must stop. */
    deposed: (why: string) => void,
  ) {
    this.replication = new ReplicationLeader(
      dataDir,
      ctx.secret,
      {
        writeInSync: (followers) => this.writeInSync(followers),
        minInSync: () => ctx.minInSync(),
        placed: (inSync, connected) => ctx.placed(inSync, connected),
        // Before its claim a writer confirms nothing (no broker writes through it yet) and is deposed by nothing.
        leaseValid: () => this.lease !== "" && ctx.session.leaseId === this.lease && ctx.session.leaseValid,
        leaseExpired: () => this.lease !== "" && (ctx.session.leaseId !== this.lease || ctx.session.leaseExpired),
        deposed,
        ackTimeoutMs: ctx.ackTimeoutMs,
      },
      ctx.logger,
    );
  }

  /** Opens the replication listener (an ephemeral port); the `owner` value to claim with. */
  async listen(): Promise<StoreOwner> {
    const server = this.ctx.transport.server((s) => this.replication.accept(s));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      // Exclusive: under `coney --workers N` each worker binds its own port (node:cluster would share one port 0 among them).
      server.listen({ port: 0, host: this.ctx.bind === "" ? undefined : this.ctx.bind, exclusive: true }, () => resolve());
    });
    const a = server.address();
    this.port = typeof a === "object" && a ? a.port : 0;
    this.server = server;
    return this.owner;
  }

  /** `owner` was put at `epoch` under the session's current lease: from now on this writer may confirm. */
  claimed(epoch: number): void {
    this.epoch = epoch;
    this.lease = this.ctx.session.leaseId;
  }

  get owner(): StoreOwner {
    return { node: this.ctx.me, host: this.ctx.host, replPort: this.port };
  }

  /** Followers listed in sync now (this writer excluded). */
  get inSync(): ReadonlySet<string> {
    return this.replication.inSync;
  }

  private async writeInSync(followers: readonly string[]): Promise<boolean> {
    const c = this.ctx.session.client;
    const value: StoreInSync = { owner: this.ctx.me, epoch: this.epoch, nodes: [this.ctx.me, ...followers] };
    const owner = this.ctx.keys.storeOwner(this.store);
    const res = await withTimeout(c.if(owner, "Mod", "==", this.epoch).then(c.put(this.ctx.keys.storeInSync(this.store)).value(JSON.stringify(value))).commit(), this.ctx.session.callTimeout, "write a store's in-sync set");
    return res.succeeded === true;
  }

  /** Nothing more is confirmed; followers are disconnected. */
  close(): void {
    this.replication.fence();
    this.server?.close();
    this.server = null;
  }
}
