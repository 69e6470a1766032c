/**
 * The stream protocol in a spread cluster (docs/CLUSTERING.md, "Streams in a spread cluster"):
 * every node serves its own streams on its own stream port, and registers where clients reach it
 * in its `members/<node>` record; Metadata on any node names a stream's home by that address, as
 * RabbitMQ names the leader's node (stream-worker-metadata.ts). A dead node's adopter registers
 * the adopted broker's own stream listener under the dead node's name, so Metadata names it while
 * the store is adopted, and the home's own port again once it took its store back.
 */
import type { ConeyConfig } from "../config/config.js";
import type { StreamWorkerPorts } from "../stream/stream-worker-ports.js";
import type { SpreadMember, StreamAddress } from "./spread-keys.js";
import { replicaPlacement, type ReplicaPlacement } from "./spread-machines.js";
import type { SpreadStoreView } from "./spread-store-view.js";

export class SpreadStreamPorts implements StreamWorkerPorts {
  constructor(
    private readonly members: ReadonlyMap<string, SpreadMember>,
    /** A spread node's stream port is its own (null: no second listener), but for a worker of `coney --workers N`, whose shared one lands on any worker. */
    readonly own: number | null = null,
  ) {}

  portOf(node: string): number | null {
    return this.members.get(node)?.stream?.port ?? null;
  }

  hostOf(node: string): string | null {
    return this.members.get(node)?.stream?.host ?? null;
  }
}

/**
 * Where clients are told to reach a broker's stream listener bound at `port` (null: none):
 * `stream.advertised_host`, else the node's `--advertise-address`; `stream.advertised_port` only
 * for the node's own listener (`own`), an adopted broker's is the port it bound.
 */
export function streamAddress(config: ConeyConfig, port: number | null, own: boolean): StreamAddress | null {
  if (port === null) return null;
  return { host: config.streamAdvertisedHost ?? config.advertiseAddress, port: own ? (config.streamAdvertisedPort ?? port) : port };
}

/**
 * A stream's `members` and `online` as /api/queues shows them (RabbitMQ: the nodes with a replica,
 * and those running): its home, and every node its home's store's in-sync set in etcd lists — the
 * writer and the followers holding every confirmed byte of the store, stream segments included
 * (each follows the whole store into `<data>/replicas/<home>/`, and one of them adopts it if the
 * home dies). Those copies serve no reader: Metadata names the leader alone. `placement` says
 * whether a copy is on another machine than the writer's (spread-machines.ts): the same members
 * are a classic or quorum queue's, whose messages are in the same store.
 */
export function storeCopies(home: string, view: SpreadStoreView, running: (node: string) => boolean): { members: string[]; online: string[]; placement: ReplicaPlacement } {
  const members = [home];
  const s = view.stores.get(home);
  const inSync = s?.inSync?.nodes ?? [];
  for (const n of inSync) if (!members.includes(n)) members.push(n);
  return { members, online: members.filter(running), placement: replicaPlacement(s?.owner?.node ?? s?.inSync?.owner ?? home, inSync) };
}
