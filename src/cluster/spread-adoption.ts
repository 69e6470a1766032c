/**
 * An adopted store (docs/CLUSTERING.md, "Stage 2"): a dead node's store served from this node's
 * copy of it. It is a second broker in this process, named as the dead node (so every queue record
 * keeps its `node`), on `<data>/replicas/<node>/`, with the store's writer as its replica hook, its
 * node link and a stream listener of its own (both on ephemeral ports, registered as
 * `members/<node>` under this node's lease) and an AMQP port nobody is told of. Every other node's RemoteQueues for the dead node's
 * queues reconnect to it through the membership they already watch; placement does not change.
 */
import type { Server, Socket } from "node:net";
import type { ConeyConfig } from "../config/config.js";
import type { Logger } from "../logging/logger.js";
import { startBroker, type RunningBroker } from "../start-broker.js";
import { listenForSpreadLinks } from "./spread-links.js";
import type { ReplicationTransport } from "./replication-transport.js";
import { SpreadPlacement, queueKey } from "./spread-placement.js";
import { applyMirroredChange, followSnapshot, heldIdentities, identityOf, type Broker, type MirroredChange } from "../broker/index.js";
import type { SpreadKeys } from "./spread-keys.js";
import type { StoreWriter } from "./spread-store-writer.js";
import type { StreamWorkerPorts } from "../stream/stream-worker-ports.js";

export interface AdoptedStore {
  readonly store: string;
  readonly writer: StoreWriter;
  readonly running: RunningBroker;
  readonly linkPort: number;
  readonly placement: SpreadPlacement;
}

/**
 * The copy's definitions are the dead node's last; the adopter's own topology has every change
 * logged since (it follows the log): the adopted broker is made the same, as a joining node is from
 * the snapshot (spread-definitions.ts). A queue homed on the dead node is never removed by it (it
 * goes only by a logged delete), nor one with messages and no home (declared just before the crash).
 */
function catchUp(broker: Broker, placement: SpreadPlacement, store: string, view: AdopterView, logger: Logger): void {
  const stale = heldIdentities(broker);
  for (const v of broker.vhosts.values()) {
    for (const q of v.queues.values()) {
      const home = placement.homeOf(v.name, q.name);
      if (home === store || (home === undefined && !q.leadsElsewhere && q.messageCount > 0)) stale.delete(identityOf("queues", { vhost: v.name, name: q.name }));
    }
  }
  placement.applyingAuthor = view.adopter;
  try {
    followSnapshot(broker, view.topology, stale);
  } catch (err) {
    logger.warn("spread cluster: an adopted store's definitions did not catch up whole", { store, err });
  } finally {
    placement.applyingAuthor = null;
  }
}

/**
 * A definitions event this node watched (a queue's home, another node's logged batch), applied to
 * the adopted broker too, as the dead node would have: so a policy, binding or exchange changed
 * while it is adopted reaches its queues. Changes logged between the death and the adoption are
 * not replayed (the home follows them when it takes its store back).
 */
export function followOnAdopted(a: AdoptedStore, keys: SpreadKeys, key: string, value: string | null, logger: Logger): void {
  const home = keys.parseQueue(key);
  if (home !== null) {
    if (value === null) a.placement.dropHome(queueKey(home.vhost, home.name));
    else a.placement.setHome(queueKey(home.vhost, home.name), value);
    return;
  }
  if (!keys.isLog(key) || value === null) return;
  const logged = JSON.parse(value) as { from: string; batch: readonly MirroredChange[] };
  if (logged.from === a.store) return;
  a.placement.applyingAuthor = logged.from;
  try {
    for (const change of logged.batch) {
      try {
        applyMirroredChange(a.running.broker, change);
      } catch (err) {
        logger.warn("spread cluster: a definitions change did not apply to an adopted store", { store: a.store, err, from: logged.from, kind: change.kind, op: change.op });
      }
    }
  } finally {
    a.placement.applyingAuthor = null;
  }
}

/** What the adopting node knows now: the queues' homes (queueKey → node) and its whole topology, followed to this moment. */
export interface AdopterView {
  readonly homes: ReadonlyMap<string, string>;
  readonly topology: readonly MirroredChange[];
  readonly adopter: string;
}

/** Opens the adopted broker on the writer's directory. */
export async function openAdopted(config: ConeyConfig, transport: ReplicationTransport, writer: StoreWriter, view: AdopterView, secret: Buffer, logger: Logger, streamPorts: StreamWorkerPorts): Promise<AdoptedStore> {
  const store = writer.store;
  let linkServer: Server | null = null;
  let linkPort = 0;
  let placement: SpreadPlacement | null = null;
  const sockets = new Set<Socket>();
  const running = await startBroker({
    ...config,
    nodeName: store,
    dataDir: writer.dataDir,
    // No client listener but the stream protocol's: clients reach the adopted queues through their
    // own node's links, and stream clients reach the adopted streams here, as Metadata on every node
    // names this listener (registered in `members/<store>`), as RabbitMQ names a stream's new leader.
    // The AMQP port is one the broker needs and nobody is told of.
    amqpPort: 0,
    httpPort: null,
    prometheusPort: null,
    tlsCert: null,
    streamPort: config.streamPort === null ? null : 0,
    streamAdvertisedPort: null,
    streamTlsPort: null,
    mqttPort: null,
    mqttsPort: null,
    webMqttPort: null,
    webMqttsPort: null,
    stompPort: null,
    stompsPort: null,
    webStompPort: null,
    logger,
    replica: writer.replication,
    streamWorkers: streamPorts,
    nodeHooks: {
      beforeRestore: async (broker) => {
        // Queues homed elsewhere come back as RemoteQueues over down ports: this broker serves only its own.
        const p = new SpreadPlacement(broker, store, config.queueLeaderLocator);
        for (const [key, node] of view.homes) p.setHome(key, node);
        broker.placeQueuesWith(p);
        placement = p;
      },
      afterRestore: async (broker) => {
        catchUp(broker, placement!, store, view, logger);
        const server = listenForSpreadLinks(transport, broker, { secret, node: store }, (err) => logger.warn("spread cluster: a node link to an adopted store was refused", { store, err: err.message }));
        server.on("connection", (s: Socket) => {
          sockets.add(s);
          s.once("close", () => sockets.delete(s));
        });
        await new Promise<void>((resolve, reject) => {
          server.once("error", reject);
          // Exclusive: under `coney --workers N` each worker binds its own port (node:cluster would share one port 0 among them).
          server.listen({ port: 0, host: config.bind === "" ? undefined : config.bind, exclusive: true }, () => resolve());
        });
        const a = server.address();
        linkPort = typeof a === "object" && a ? a.port : 0;
        linkServer = server;
      },
      close: async () => {
        const server = linkServer as Server | null;
        // The other nodes' links end with the store's service here: they see it lost (consumers cancelled, publishes nacked).
        for (const s of sockets) s.destroy();
        await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      },
    },
  });
  return { store, writer, running, linkPort, placement: placement! };
}
