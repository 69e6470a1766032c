/**
 * Stage 2 of a spread cluster (docs/CLUSTERING.md, "Stage 2: each node's store replicated, a dead
 * node's queues adopted"): every store of the cluster, from this node's side.
 * - Its own store: claimed in etcd before the broker opens it (spread-store-claim.ts) and written
 *   with a `StoreWriter`, so the node's confirms wait for the store's in-sync followers. If another
 *   node adopted it meanwhile, this node does not open its stale copy: it follows the adopter into
 *   its own data dir, asks for a hand-back once listed in sync, and claims the store once released.
 * - Every other store: followed into `<data>/replicas/<store>/` (spread-store-followers.ts).
 * - An orphaned store (no writer, its home not registered) whose in-sync set lists this node:
 *   campaigned for and, once won, served by an adopted broker (spread-adoption.ts) until its home
 *   asks for it back.
 * Invariant: at most one process writes a store, the one `owner` names; its confirms stop before
 * its key can be gone (the lease rule), and every other writer needs that key gone to win.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { ConeyConfig } from "../config/config.js";
import type { Logger } from "../logging/logger.js";
import { withTimeout, type EtcdSession } from "./etcd-session.js";
import type { ReplicationTransport } from "./replication-transport.js";
import type { SpreadKeys, SpreadMember } from "./spread-keys.js";
import { SpreadStoreView } from "./spread-store-view.js";
import { StoreFollowers, replicaDir } from "./spread-store-followers.js";
import { StoreWriter, type WriterContext } from "./spread-store-writer.js";
import { adoptStore, claimOwnStore, releaseStore } from "./spread-store-claim.js";
import { followOnAdopted, openAdopted, type AdoptedStore, type AdopterView } from "./spread-adoption.js";
import { streamAddress } from "./spread-stream-ports.js";
import { copiesPlaced, machineOf } from "./spread-machines.js";
import type { StreamWorkerPorts } from "../stream/stream-worker-ports.js";

const WAIT_STEP_MS = 250;

export class SpreadStores {
  readonly view: SpreadStoreView;
  private readonly followers: StoreFollowers;
  private readonly ctx: WriterContext;
  own: StoreWriter | null = null;
  private readonly adopted = new Map<string, AdoptedStore>();
  private readonly adopting = new Set<string>();
  private readonly releasing = new Set<string>();
  /** Definitions events that came while a store's adopted broker opened (after its catch-up point): applied once it is open. */
  private readonly buffered = new Map<string, Array<[string, string | null]>>();
  private readonly me: string;

  constructor(
    private readonly config: ConeyConfig,
    /** Replication connections and the adopted brokers' node links (TLS with `--cluster-tls`). */
    private readonly transport: ReplicationTransport,
    private readonly session: EtcdSession,
    private readonly keys: SpreadKeys,
    private readonly secret: Buffer,
    private readonly logger: Logger,
    /** This node's own store may no longer be written here (lease gone, etcd refused): the node fences. */
    private readonly fenced: (why: string) => void,
    /** Every member's stream address: an adopted broker's Metadata names them as this node's does. */
    private readonly streamPorts: StreamWorkerPorts,
  ) {
    this.me = config.nodeName;
    this.view = new SpreadStoreView(keys);
    this.followers = new StoreFollowers(this.me, config.dataDir, secret, transport, logger);
    // Copies off the writer's machine: the writer runs in this process, so its machine is this node's (an adopted store's too).
    const machine = machineOf(this.me);
    this.ctx = {
      me: this.me,
      host: config.advertiseAddress,
      bind: config.bind,
      session,
      keys,
      secret,
      transport,
      logger,
      ackTimeoutMs: config.replicaAckTimeout,
      minInSync: () => this.view.minInSync(config.minInSyncReplicas),
      placed: (inSync, connected) => copiesPlaced(machine, this.view.machinesWanted(), inSync, connected),
    };
  }

  /** The stores this process writes. */
  private get writing(): Set<string> {
    const s = new Set(this.adopted.keys());
    if (this.own) s.add(this.me);
    return s;
  }

  /**
   * Before the broker opens the data dir: this node becomes its store's writer. While another node
   * writes it (an adopter), this node follows it back, asks for it, and waits.
   */
  async claimOwn(): Promise<StoreWriter> {
    await withTimeout(this.session.client.put(this.keys.known(this.me)).value(JSON.stringify({ name: this.me })).exec(), this.session.callTimeout, "register a known node");
    let askedBy: string | null = null;
    let waitingSince = 0;
    const writer = new StoreWriter(this.me, this.config.dataDir, this.ctx, (why) => this.fenced(why));
    const owner = await writer.listen();
    try {
      for (;;) {
        const claim = await claimOwnStore(this.session, this.keys, this.me, owner);
        if (claim.kind === "claimed") {
          writer.claimed(claim.epoch);
          this.followers.stop(this.me);
          this.own = writer;
          if (waitingSince > 0) this.logger.info("spread cluster: store taken back", { store: this.me, waitedMs: Math.round(performance.now() - waitingSince) });
          return writer;
        }
        if (waitingSince === 0) {
          waitingSince = performance.now();
          this.logger.warn("spread cluster: this node's store is written elsewhere; following it back before serving", { store: this.me, claim });
        }
        await this.refresh();
        // Only its own store until its broker has started: a copy it follows makes its writer's confirms wait for
        // this node's acknowledgements, and the broker's start (recovery, the management API's modules: a quarter
        // of a second of CPU in one piece, seconds on a loaded machine) holds this event loop. Following the
        // others' stores now stopped their queues' confirms for that long (chaos case 9 under load: 1.4–3.7 s).
        // The node's ticks follow them once it serves.
        this.followers.sync(this.view, this.writing, new Set([this.me]));
        const s = this.view.of(this.me);
        // Listed in sync by the adopter (its copy here holds every confirmed byte): ask for the store back.
        if (s.owner !== null && s.owner.node !== this.me && this.followers.synced(this.me) && s.inSync?.owner === s.owner.node && s.inSync.nodes.includes(this.me) && askedBy !== s.owner.node) {
          await withTimeout(this.session.client.put(this.keys.storeHandback(this.me)).value(JSON.stringify({ node: this.me })).lease(this.session.leaseId).exec(), this.session.callTimeout, "ask for a store back");
          askedBy = s.owner.node;
          this.logger.info("spread cluster: asked for this node's store back", { store: this.me, from: askedBy });
        }
        await sleep(WAIT_STEP_MS);
      }
    } catch (err) {
      // etcd failed us (or the lease went): a first start fails with it, a fence's boot retries from the start.
      writer.close();
      throw err;
    }
  }

  /** Reads every store's keys again (before the watch runs). */
  private async refresh(): Promise<void> {
    const res = await withTimeout(this.session.client.getAll().prefix(`${this.keys.prefix}stores/`).exec(), this.session.callTimeout, "read the stores");
    this.view.stores.clear();
    for (const kv of res.kvs) this.view.take(kv.key.toString(), kv.value.toString(), Number(kv.mod_revision));
  }

  /** A watched `stores/` or `nodes/` key; false for any other. */
  take(key: string, value: string | null, revision: number): boolean {
    return this.view.take(key, value, revision);
  }

  /** A watched queue home or logged definitions batch: the adopted brokers follow it too. */
  definitionsEvent(key: string, value: string | null): void {
    for (const a of this.adopted.values()) followOnAdopted(a, this.keys, key, value, this.logger);
    for (const events of this.buffered.values()) events.push([key, value]);
  }

  /** Every tick: follow the stores others write, adopt orphans this node may, hand back those asked for. */
  tick(members: ReadonlyMap<string, SpreadMember>, view: () => AdopterView): void {
    this.followers.sync(this.view, this.writing);
    for (const [store, s] of this.view.stores) {
      if (store === this.me || s.owner !== null || s.handback !== null || members.has(store) || this.adopting.has(store) || this.adopted.has(store)) continue;
      if (s.inSync === null || !s.inSync.nodes.includes(this.me) || !this.followers.complete(store)) continue;
      this.adopting.add(store);
      void this.adopt(store, s.inSyncRevision, view)
        .catch((err: unknown) => this.logger.warn("spread cluster: adoption failed", { store, err: (err as Error).message }))
        .finally(() => this.adopting.delete(store));
    }
    for (const a of this.adopted.values()) {
      if (this.view.of(a.store).handback === a.store && a.writer.inSync.has(a.store) && !this.releasing.has(a.store)) {
        this.releasing.add(a.store);
        void this.handBack(a).finally(() => this.releasing.delete(a.store));
      }
    }
  }

  private async adopt(store: string, inSyncRevision: number, view: () => AdopterView): Promise<void> {
    const started = performance.now();
    this.followers.stop(store);
    const writer = new StoreWriter(store, replicaDir(this.config.dataDir, this.me, store), this.ctx, (why) => void this.drop(store, why));
    const epoch = await adoptStore(this.session, this.keys, store, await writer.listen(), inSyncRevision).catch(() => null);
    if (epoch === null) return writer.close();
    writer.claimed(epoch);
    this.logger.warn("spread cluster: adopting a dead node's store", { store, epoch });
    let a: AdoptedStore;
    // The catch-up point (this node's topology now) and the buffer of what comes after it start together.
    const events: Array<[string, string | null]> = [];
    this.buffered.set(store, events);
    try {
      a = await openAdopted(this.config, this.transport, writer, view(), this.secret, this.logger, this.streamPorts);
    } catch (err) {
      writer.close();
      await releaseStore(this.session, this.keys, store, epoch).catch(() => false);
      throw err;
    } finally {
      this.buffered.delete(store);
    }
    for (const [key, value] of events) followOnAdopted(a, this.keys, key, value, this.logger);
    this.adopted.set(store, a);
    // Its stream listener is the adopted broker's own: Metadata on every node names it for the store's streams.
    const stream = streamAddress(this.config, a.running.streamPort, false);
    const member: SpreadMember = { name: store, pid: process.pid, host: this.config.advertiseAddress, linkPort: a.linkPort, amqpPort: a.running.amqpPort, httpPort: null, stream, adoptedBy: this.me };
    await withTimeout(this.session.client.put(this.keys.member(store)).value(JSON.stringify(member)).lease(this.session.leaseId).exec(), this.session.callTimeout, "register an adopted store");
    this.logger.info("spread cluster: serving an adopted store", { store, ms: Math.round(performance.now() - started) });
  }

  /** Its home is back and in sync: stop writing (nothing confirmed after), then release the keys. */
  private async handBack(a: AdoptedStore): Promise<void> {
    await this.drop(a.store, "handed back to its home");
    const ok = await releaseStore(this.session, this.keys, a.store, a.writer.epoch).catch(() => false);
    this.logger.info("spread cluster: store handed back", { store: a.store, released: ok });
  }

  private async drop(store: string, why: string): Promise<void> {
    const a = this.adopted.get(store);
    if (!a) return;
    this.adopted.delete(store);
    this.logger.warn("spread cluster: no longer serving an adopted store", { store, why });
    a.writer.close();
    await withTimeout(a.running.close(), 10_000, "adopted broker close").catch((err: unknown) => this.logger.error("spread cluster: adopted broker did not close", { store, err: (err as Error).message }));
  }

  /** Stops writing every store (own and adopted); followers go on unless `all`. */
  async closeWriters(why: string): Promise<void> {
    this.own?.close();
    this.own = null;
    await Promise.all([...this.adopted.keys()].map((s) => this.drop(s, why)));
  }

  async close(): Promise<void> {
    await this.closeWriters("node stopping");
    this.followers.close();
  }
}
