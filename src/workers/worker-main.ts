/**
 * A worker process of `coney --workers N` (node:cluster runs this script; primary.ts forks it):
 * asks the primary what to run, runs the normal broker (start-broker.ts) on the shared ports,
 * sends a heartbeat every interval, applies the group tables it is sent, and answers the other
 * workers' figure requests for /api/nodes.
 *
 * Its IPC endpoint, start, heartbeat and stop (no worker outlives its primary, so none writes a
 * store the next primary hands to another) are worker-process.ts's.
 */
import { processFigures } from "../http/node-record.js";
import type { PeerNode } from "../http/peer-nodes.js";
import { startBroker, type RunningBroker } from "../start-broker.js";
import type { GroupTable } from "./group-table.js";
import { PRIMARY } from "./ipc-endpoint.js";
import { runWorkerProcess } from "./worker-process.js";
import { WorkerGroups } from "./worker-groups.js";
import { WorkerQueues } from "./worker-queues.js";
import { WorkerGroupMoves } from "./worker-group-moves.js";
import { WorkerGroupStores } from "./worker-group-stores.js";
import { WorkerRecords } from "./worker-records.js";
import { WorkerClientIds } from "./worker-client-ids.js";
import { TopologyRelay } from "./topology-relay.js";
import { RetainedRelay } from "./retained-relay.js";
import { ownVersion, type Broker } from "../broker/index.js";
import type { WorkerFigures, WorkerStart } from "./worker-start.js";
import { workerName } from "./workers-file.js";
import { downPickedListener } from "../listeners/port-picks.js";

/** How long a rebalance may take (each move waits at most the revoke's 5 s acknowledgement, or the old leader's kill). */
const REBALANCE_LIMIT_MS = 120_000;
/** How long a starting worker waits for its links to the others before its client listeners bind (worker-queues.ts linksUp). */
const LINKS_UP_WAIT_MS = 5_000;

runWorkerProcess<WorkerStart>(async (w) => {
  const { index, endpoint, start, logger } = w;
  const { config } = start;
  let running: RunningBroker | null = null;
  const groups = new WorkerGroups(index);
  await groups.apply(start.table);
  // Tables that come before the broker is restored are kept (WorkerGroupMoves.apply): nothing is open yet to close.
  let moves: WorkerGroupMoves | null = null;
  groups.onChange((table) => moves?.apply(table));
  endpoint.handle("table", (table) => groups.apply(table as GroupTable));
  const groupStores = start.groupsDataDir === null ? null : new WorkerGroupStores({ dataDir: start.groupsDataDir, nodeDir: config.dataDir, groups: start.table.groups.length, segmentBytes: config.msgStoreFileSizeLimit, logger });
  endpoint.handle("figures", () => {
    if (running === null) throw new Error(`${config.nodeName} is starting`);
    const figures: WorkerFigures = { record: processFigures(running.broker, running.alarms), listeners: running.listeners().filter((l) => l.up).map((l) => ({ protocol: l.protocol, port: l.port })) };
    return figures;
  });
  const others = start.links.nodeNames.map((_, i) => workerName(i)).filter((_, i) => i !== index);
  const peers = {
    list: async () => (await endpoint.request(PRIMARY, "nodes", null, 5000)) as PeerNode[],
    records: new WorkerRecords(endpoint, others),
    // The primary answers once the last assign is sent; its table request came first on this channel, so awaiting this worker's moves covers it.
    rebalance: async () => {
      await endpoint.request(PRIMARY, "rebalance", { queuesPerGroup: moves?.queuesPerGroup() ?? null }, REBALANCE_LIMIT_MS);
      await moves?.settled();
    },
  };
  // The queues other workers lead are reached over links; definitions follow every worker's changes.
  const log = logger;
  const otherWorkers = start.links.nodeNames.map((_, i) => workerName(i)).filter((_, i) => i !== index);
  let relay: TopologyRelay | null = null;
  let joined = false;
  let queues: WorkerQueues | null = null;
  const nodeHooks = {
    beforeRestore: async (broker: Broker) => {
      queues = new WorkerQueues(broker, index, start.links, log);
      moves = new WorkerGroupMoves(broker, queues, index, groups.current ?? start.table, groupStores, log);
      queues.start();
    },
    afterRestore: async (broker: Broker) => {
      // Recovered delayed messages already due (a restart, a single node's data taken over) are
      // released only once this worker's groups are open and its links up: released earlier,
      // one would be routed to a queue not in place yet and lost. Called before the first await,
      // so no release timer (a macrotask) has run since the recovery.
      broker.pauseDelayedReleases();
      relay = new TopologyRelay(broker, endpoint, {
        peers: otherWorkers,
        onApplyError: (err, change) => log.warn("a definitions change from another worker did not apply here", { err, kind: change.kind, op: change.op }),
      });
      // Before the client listeners bind: a snapshot applied later would remove what this worker's
      // first clients declared meanwhile (it was not in the snapshot), their exclusive queues too.
      joined = await relay.join();
      // Its groups open once every queue they hold is known here (a store recovered earlier would take a queue it does not know for a deleted one).
      await (moves as WorkerGroupMoves | null)?.start();
      // Serving the links after: a peer's publish to a queue of a group led here finds it local.
      await (queues as WorkerQueues | null)?.serve();
      await (queues as WorkerQueues | null)?.linksUp(LINKS_UP_WAIT_MS);
      broker.resumeDelayedReleases();
    },
    close: async () => {
      relay?.flush();
      await moves?.close();
      await queues?.close();
    },
  };
  const ownStream = start.streamPorts[index] ?? null;
  const streamPortOf = new Map(start.links.nodeNames.map((name, i) => [name, start.streamPorts[i] ?? null]));
  const streamWorkers = ownStream === null ? {} : { streamWorkers: { own: ownStream, portOf: (node: string) => streamPortOf.get(node) ?? null } };
  running = await startBroker({ ...config, logger, peers, nodeHooks, clientIdPeers: new WorkerClientIds(endpoint, otherWorkers), ...streamWorkers, ...(groupStores ? { groupStores } : {}) });
  w.closeWith(running);
  if (w.stopping) {
    await running.close();
    return;
  }
  // A side listener would retry a picked port another process took for ever: the start fails instead, and the primary picks again.
  const taken = downPickedListener(running.listeners(), start.pickedPorts);
  if (taken !== null) throw taken;
  logger.info("worker following the others' definitions", { copied_from_a_peer: joined });
  const retained = running.retainedMessages === null ? null : new RetainedRelay(running.retainedMessages, endpoint, otherWorkers);
  if (retained !== null) logger.info("worker following the others' MQTT retained messages", { copied_from_a_peer: await retained.join() });
  endpoint.send(PRIMARY, "ready", ownVersion());
});
