/**
 * This node's copies of the stores it does not write (docs/CLUSTERING.md, "Stage 2"): one
 * `ReplicationFollower` (the replicated cluster's) per store, into `<data>/replicas/<store>/`, or
 * into the node's own data dir for its own store while another node writes it (the path back from
 * an adoption). Each follows whoever the store's `owner` key names; a new writer means a new
 * connection, whose catch-up keeps what matches and replaces what differs.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../logging/logger.js";
import { ReplicationFollower, copyIncomplete } from "./replication-follower.js";
import type { ReplicationTransport } from "./replication-transport.js";
import type { SpreadStoreView } from "./spread-store-view.js";

export const REPLICAS_DIR = "replicas";

/** Where this node keeps `store`'s copy. */
export function replicaDir(dataDir: string, me: string, store: string): string {
  return store === me ? dataDir : join(dataDir, REPLICAS_DIR, encodeURIComponent(store));
}

export class StoreFollowers {
  private readonly followers = new Map<string, ReplicationFollower>();

  constructor(
    private readonly me: string,
    private readonly dataDir: string,
    private readonly secret: Buffer,
    private readonly transport: ReplicationTransport,
    private readonly logger: Logger,
  ) {}

  /**
   * Follows every store written by another process than this one (`writing`: the stores this
   * process writes), or only those of `only` (the others are left as they are).
   */
  sync(view: SpreadStoreView, writing: ReadonlySet<string>, only?: ReadonlySet<string>): void {
    for (const [store, s] of view.stores) {
      if (only !== undefined && !only.has(store)) continue;
      const owner = s.owner;
      const f = this.followers.get(store);
      if (owner === null || owner.node === this.me || writing.has(store)) {
        if (f) this.stop(store);
        continue;
      }
      if (f && !f.closed && f.target.leader === owner.node && f.target.port === owner.replPort && f.target.host === owner.host) continue;
      f?.close();
      const dir = replicaDir(this.dataDir, this.me, store);
      mkdirSync(dir, { recursive: true });
      this.logger.info("spread cluster: following a store", { store, writer: owner.node });
      const follower = new ReplicationFollower({ leader: owner.node, host: owner.host, port: owner.replPort }, this.me, this.secret, this.transport, dir, this.logger, (closed) => {
        if (this.followers.get(store) === closed) this.followers.delete(store);
      });
      this.followers.set(store, follower);
    }
  }

  /** This node's copy of `store` holds every byte its writer sent so far (the snapshot is on disk). */
  synced(store: string): boolean {
    return this.followers.get(store)?.synced === true;
  }

  /** This node's copy of `store` exists and is not in the middle of a snapshot (it may be elected). */
  complete(store: string): boolean {
    const dir = replicaDir(this.dataDir, this.me, store);
    return existsSync(join(dir, "messages")) && !copyIncomplete(dir);
  }

  stop(store: string): void {
    this.followers.get(store)?.close();
    this.followers.delete(store);
  }

  close(): void {
    for (const f of this.followers.values()) f.close();
    this.followers.clear();
  }
}
