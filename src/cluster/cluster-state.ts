/**
 * What a node reads of its cluster from etcd in one range read under the cluster's prefix
 * (docs/CLUSTERING.md, "Keys in etcd"), the values it writes there, and the members and stream
 * endpoints it tells of from that view.
 */
import { ownVersion, type ClusterMember, type NodeVersion } from "../broker/index.js";
import type { ClientPorts } from "./client-ports.js";
import type { ClusterKeys } from "./etcd-session.js";

export interface MemberInfo {
  readonly name: string;
  readonly host: string;
  readonly ports: Readonly<ClientPorts>;
  readonly clusterPort: number;
  /** Its stream port: `port` as bound (a follower's front connects there), `advertised` as clients are told (Metadata). */
  readonly stream?: { readonly port: number; readonly advertised: { readonly host: string; readonly port: number; readonly tlsPort: number | null } };
  /** What it runs (cluster_status's Versions for a follower, whose record is otherwise short). */
  readonly version?: NodeVersion;
}

export interface InSyncValue {
  readonly leader: string;
  /** Every node holding all confirmed data, the leader included. */
  readonly nodes: readonly string[];
}

export interface ClusterState {
  readonly leader: string | null;
  readonly members: ReadonlyMap<string, MemberInfo>;
  /** Nodes that ever joined (their count sets the default min-in-sync-replicas). */
  readonly known: readonly string[];
  readonly inSync: InSyncValue | null;
  /** mod_revision of the in-sync key (0 when absent): a campaign is valid only against it. */
  readonly inSyncRevision: number;
}

interface RawKv {
  key: Buffer | Uint8Array | string;
  value: Buffer | Uint8Array | string;
  mod_revision?: string | number | null;
}

/** Parses one range read of the prefix; values that do not parse are ignored (logged by the caller's retries). */
export function parseClusterState(keys: ClusterKeys, kvs: readonly RawKv[]): ClusterState {
  let leader: string | null = null;
  let inSync: InSyncValue | null = null;
  let inSyncRevision = 0;
  const members = new Map<string, MemberInfo>();
  const known: string[] = [];
  const memberPrefix = keys.member("");
  const knownPrefix = keys.known("");
  for (const kv of kvs) {
    const key = Buffer.from(kv.key).toString("utf8");
    const value = Buffer.from(kv.value).toString("utf8");
    try {
      if (key === keys.leader) leader = value;
      else if (key === keys.insync) {
        inSync = JSON.parse(value) as InSyncValue;
        inSyncRevision = Number(kv.mod_revision ?? 0);
      } else if (key.startsWith(memberPrefix)) members.set(key.slice(memberPrefix.length), JSON.parse(value) as MemberInfo);
      else if (key.startsWith(knownPrefix)) known.push(key.slice(knownPrefix.length));
    } catch {
      // A value another version wrote: ignored rather than trusted.
    }
  }
  return { leader, members, known, inSync, inSyncRevision };
}

export const EMPTY_STATE: ClusterState = { leader: null, members: new Map(), known: [], inSync: null, inSyncRevision: 0 };

/** Every node the cluster knows, as ClusterView lists them (`/api/nodes`, the UI); `ownStream`: this node's stream endpoint. */
export function clusterMembers(view: ClusterState, me: string, ownStream: MemberInfo["stream"]): ClusterMember[] {
  const names = new Set<string>([...view.known, ...view.members.keys(), me]);
  const inSync = new Set(view.inSync?.nodes ?? []);
  const stream = (name: string): ClusterMember["stream"] => (name === me ? ownStream?.advertised : view.members.get(name)?.stream?.advertised) ?? null;
  const version = (name: string): NodeVersion | undefined => (name === me ? ownVersion() : view.members.get(name)?.version);
  return [...names].sort().map((name) => {
    const v = version(name);
    return { name, running: name === me || view.members.has(name), leader: view.leader === name, inSync: inSync.has(name), stream: stream(name), ...(v ? { version: v } : {}) };
  });
}

/** The TLS stream port of the node advertised at `host`:`port` (Metadata for a follower's TLS clients); null: none known. */
export function tlsStreamPortAt(view: ClusterState, ownStream: MemberInfo["stream"], host: string, port: number): number | null {
  for (const m of [ownStream, ...[...view.members.values()].map((i) => i.stream)]) {
    if (m?.advertised.host === host && m.advertised.port === port) return m.advertised.tlsPort;
  }
  return null;
}
