/**
 * Definitions followed live between the workers of `coney --workers N` (docs/CLUSTERING.md,
 * "Following definitions live"): this worker's topology changes leave as one `topology` batch per
 * event-loop turn, broadcast over the IPC channels (the primary forwards them, in the order each
 * worker sent them); the other workers' batches are applied here through the broker's methods.
 *
 * A worker that starts while others run asks one of them for its whole topology (`topology-
 * snapshot`) and makes its own the same (followSnapshot): it holds transient exchanges, queues and
 * bindings that no file kept, and loses what was deleted while it was down. Only a worker that has
 * joined answers; when none has (every worker is starting, as after the primary starts), each keeps
 * what its own definitions file held — the same at a clean restart, and at most the file's last
 * write interval apart after a crash, the window a single node has too (store/definitions-file.ts). Batches that arrive
 * while the snapshot is on its way are held and applied after it; applying is idempotent, so one
 * already in the snapshot changes nothing.
 */
import { applyMirroredChange, followSnapshot, heldIdentities, MirrorOutbox, topologySnapshot, type Broker, type MirroredChange } from "../broker/index.js";
import type { Address, IpcEndpoint } from "./ipc-endpoint.js";

export const TOPOLOGY = "topology";
export const TOPOLOGY_SNAPSHOT = "topology-snapshot";
const TOPOLOGY_BARRIER = "topology-barrier";
const SNAPSHOT_TIMEOUT_MS = 10_000;
const BARRIER_TIMEOUT_MS = 5_000;

export interface TopologyRelayOptions {
  /** The other workers, in the order they are asked for a snapshot. */
  readonly peers: readonly Address[];
  /** A change that failed to apply: this worker's copy may now differ (logged by the caller). */
  readonly onApplyError: (err: unknown, change: MirroredChange) => void;
}

export class TopologyRelay {
  private held: Array<readonly MirroredChange[]> | null = [];
  private readonly outbox: MirrorOutbox;

  constructor(
    private readonly broker: Broker,
    private readonly endpoint: IpcEndpoint,
    private readonly o: TopologyRelayOptions,
  ) {
    this.outbox = new MirrorOutbox(
      (batch) => endpoint.broadcast(TOPOLOGY, batch),
      () => this.barrier(),
    );
    // A request takes the same way as the batches (through the primary, in order): answered, it
    // says every batch sent before it is applied. A worker still joining answers too (it holds
    // them until its snapshot is in): waiting for it would stall every declare of the others
    // while a restarted worker recovers.
    endpoint.handle(TOPOLOGY_BARRIER, () => null);
    endpoint.handle(TOPOLOGY, (body) => this.received(body as readonly MirroredChange[]));
    endpoint.handle(TOPOLOGY_SNAPSHOT, () => {
      // Only a worker that joined answers: two workers starting together must not take each
      // other's half-loaded copies (each would remove what the other had not loaded yet).
      if (this.held !== null) throw new Error("not following yet");
      // What this worker made but has not sent yet goes first, so the asker misses nothing.
      this.outbox.flush();
      return topologySnapshot(broker);
    });
    broker.mirror = this.outbox;
  }

  /**
   * Takes the topology of the first peer that answers, then applies what arrived meanwhile.
   * Resolves true when a peer answered; false when none runs (every worker is starting: each has
   * what its own definitions file kept).
   */
  /** Resolves once every running peer applied the batches sent so far; a peer that is down or silent is not waited for (it copies a snapshot when it joins). */
  private async barrier(): Promise<void> {
    await Promise.all(this.o.peers.map((p) => this.endpoint.request(p, TOPOLOGY_BARRIER, null, BARRIER_TIMEOUT_MS).catch(() => undefined)));
  }

  async join(): Promise<boolean> {
    const stale = heldIdentities(this.broker);
    let joined = false;
    for (const peer of this.o.peers) {
      try {
        const snapshot = (await this.endpoint.request(peer, TOPOLOGY_SNAPSHOT, null, SNAPSHOT_TIMEOUT_MS)) as MirroredChange[];
        followSnapshot(this.broker, snapshot, stale);
        joined = true;
        break;
      } catch {
        // Not running, or still starting: ask the next one.
      }
    }
    const held = this.held ?? [];
    this.held = null;
    for (const batch of held) this.apply(batch);
    return joined;
  }

  /** Sends what is gathered now (before the worker stops). */
  flush(): void {
    this.outbox.flush();
  }

  private received(batch: readonly MirroredChange[]): void {
    if (this.held !== null) this.held.push(batch);
    else this.apply(batch);
  }

  private apply(batch: readonly MirroredChange[]): void {
    for (const change of batch) {
      try {
        applyMirroredChange(this.broker, change);
      } catch (err) {
        this.o.onApplyError(err, change);
      }
    }
  }
}
