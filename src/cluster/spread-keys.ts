/**
 * The etcd keys of a spread cluster, all under `/coney/<cluster-name>/spread/`
 * (docs/CLUSTERING.md, "A spread cluster over etcd"), and the watch that hands their changes to
 * the node in revision order. A vhost or queue name may hold any character, so both are
 * URI-encoded in a queue's key.
 */
import type { NodeVersion } from "../broker/index.js";
import type { EtcdSession } from "./etcd-session.js";
import type { Logger } from "../logging/logger.js";

/** A member's record: where its node link and client ports are. */
export interface SpreadMember {
  readonly name: string;
  /** Its process id (`os_pid` in /api/nodes). */
  readonly pid: number;
  readonly host: string;
  readonly linkPort: number;
  readonly amqpPort: number;
  readonly httpPort: number | null;
  /** Where stream clients reach its streams (spread-stream-ports.ts); absent or null: no stream listener. */
  readonly stream?: StreamAddress | null;
  /** Registered by an adopter for a dead node's store (docs/CLUSTERING.md, "Stage 2"): the adopter's name. */
  readonly adoptedBy?: string;
  /** What it runs (cluster_status's Versions while it does not answer). */
  readonly version?: NodeVersion;
}

/** A stream listener as clients are told of it (the advertised host, the bound or advertised port). */
export interface StreamAddress {
  readonly host: string;
  readonly port: number;
}

/** `stores/<node>/owner`: the process writing a store and its replication listener. */
export interface StoreOwner {
  readonly node: string;
  readonly host: string;
  readonly replPort: number;
}

/** `stores/<node>/insync`: the writer first, then its followers holding every confirmed byte. */
export interface StoreInSync {
  readonly owner: string;
  readonly epoch: number;
  readonly nodes: readonly string[];
}

export class SpreadKeys {
  readonly prefix: string;
  constructor(clusterName: string) {
    this.prefix = `/coney/${clusterName}/spread/`;
  }
  member(node: string): string {
    return `${this.prefix}members/${node}`;
  }
  queue(vhost: string, name: string): string {
    return `${this.prefix}queues/${encodeURIComponent(vhost)}/${encodeURIComponent(name)}`;
  }
  log(node: string): string {
    return `${this.prefix}log/${node}`;
  }
  get defsLeader(): string {
    return `${this.prefix}defs-leader`;
  }
  get snapshot(): string {
    return `${this.prefix}defs-snapshot`;
  }
  /** The member a `members/` key names, or null for another key. */
  parseMember(key: string): string | null {
    const p = `${this.prefix}members/`;
    return key.startsWith(p) ? key.slice(p.length) : null;
  }
  /** The queue a `queues/` key names, or null for another key. */
  parseQueue(key: string): { vhost: string; name: string } | null {
    const p = `${this.prefix}queues/`;
    if (!key.startsWith(p)) return null;
    const [vhost, name] = key.slice(p.length).split("/");
    return vhost === undefined || name === undefined ? null : { vhost: decodeURIComponent(vhost), name: decodeURIComponent(name) };
  }
  /** Stage 2 (docs/CLUSTERING.md, "Stage 2"): who writes `store`'s store, under the writer's lease. */
  storeOwner(store: string): string {
    return `${this.prefix}stores/${store}/owner`;
  }
  /** The writer and the followers holding every confirmed byte of `store`. */
  storeInSync(store: string): string {
    return `${this.prefix}stores/${store}/insync`;
  }
  /** The store's home, back and in sync, asks its adopter for it. */
  storeHandback(store: string): string {
    return `${this.prefix}stores/${store}/handback`;
  }
  /** Every node that ever started (no lease): their count sets the default min-in-sync. */
  known(node: string): string {
    return `${this.prefix}nodes/${node}`;
  }
  /** The store and part a `stores/` key names, or null for another key. */
  parseStore(key: string): { store: string; part: "owner" | "insync" | "handback" } | null {
    const p = `${this.prefix}stores/`;
    if (!key.startsWith(p)) return null;
    const rest = key.slice(p.length);
    const slash = rest.lastIndexOf("/");
    const part = rest.slice(slash + 1);
    if (slash <= 0 || (part !== "owner" && part !== "insync" && part !== "handback")) return null;
    return { store: rest.slice(0, slash), part };
  }
  isKnown(key: string): boolean {
    return key.startsWith(`${this.prefix}nodes/`);
  }
  isLog(key: string): boolean {
    return key.startsWith(`${this.prefix}log/`);
  }
}

/** What a watched event goes to. */
export interface SpreadWatch {
  event(key: string, value: string | null, revision: number): void;
}

/** Watches the whole prefix from `fromRevision`, handing each event on in order; returns the stop. */
export async function watchSpread(session: EtcdSession, keys: SpreadKeys, fromRevision: number, to: SpreadWatch, logger: Logger): Promise<() => Promise<void>> {
  const watcher = await session.client.watch().prefix(keys.prefix).startRevision(String(fromRevision)).create();
  watcher.on("data", (res) => {
    for (const e of res.events) {
      try {
        to.event(e.kv.key.toString(), e.type === "Delete" ? null : e.kv.value.toString(), Number(e.kv.mod_revision));
      } catch (err) {
        logger.warn("spread cluster: an etcd event could not be handled", { err, key: e.kv.key.toString() });
      }
    }
  });
  watcher.on("error", (err) => logger.error("spread cluster: etcd watch failed", { err: err.message }));
  return () => watcher.cancel();
}
