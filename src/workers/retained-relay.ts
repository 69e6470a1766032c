/**
 * MQTT retained messages followed between the workers of `coney --workers N`. Which worker a
 * client lands on is the kernel's choice, so a message retained through one worker must reach a
 * subscriber on any other: every worker keeps the whole set (in its own file, as on one node),
 * each change a client makes on one is broadcast over IPC (`mqtt-retained`) and applied by the
 * others, which never relay it further. A worker that starts while others run takes the set of
 * the first one that answers (`mqtt-retained-snapshot`), then applies what arrived meanwhile —
 * so it also learns what was retained or cleared while it was down. Only a worker that has joined
 * answers; when none has (all starting together), each keeps what its own file held.
 */
import type { RetainedStore } from "../mqtt/retained-store.js";
import type { Address, IpcEndpoint } from "./ipc-endpoint.js";

export const RETAINED = "mqtt-retained";
export const RETAINED_SNAPSHOT = "mqtt-retained-snapshot";
const SNAPSHOT_TIMEOUT_MS = 10_000;

export class RetainedRelay {
  /** Changes heard before this worker joined; null once joined. */
  private held: string[] | null = [];

  constructor(
    private readonly store: RetainedStore,
    private readonly endpoint: IpcEndpoint,
    private readonly peers: readonly Address[],
  ) {
    store.onChange = (change) => endpoint.broadcast(RETAINED, change);
    endpoint.handle(RETAINED, (body) => {
      if (this.held !== null) this.held.push(body as string);
      else store.applyChange(body as string);
    });
    endpoint.handle(RETAINED_SNAPSHOT, () => {
      if (this.held !== null) throw new Error("not following yet");
      return store.snapshot();
    });
  }

  /** Takes the set of the first peer that answers; resolves whether one did. */
  async join(): Promise<boolean> {
    let joined = false;
    for (const peer of this.peers) {
      try {
        this.store.followSnapshot((await this.endpoint.request(peer, RETAINED_SNAPSHOT, null, SNAPSHOT_TIMEOUT_MS)) as string);
        joined = true;
        break;
      } catch {
        // Not running, or still starting: ask the next one.
      }
    }
    const held = this.held ?? [];
    this.held = null;
    for (const change of held) this.store.applyChange(change);
    return joined;
  }
}
