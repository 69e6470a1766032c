/**
 * MQTT client ids across the workers of `coney --workers N` (src/mqtt/client-id-peers.ts): a
 * worker's CONNECT that claims a client id is broadcast over IPC (`mqtt-claim`, one-way, through
 * the primary's hub to every other worker); each worker closes its own holder of that id if it
 * claimed it earlier. Sent once per MQTT CONNECT, never per message. Before that, a CONNECT asks
 * every other worker (`mqtt-take-over`, a request each) to close its holder now, and waits for
 * the answers: its clean start must find the old session's queues gone, not still held.
 */
import type { ClientIdClaim, ClientIdPeers } from "../mqtt/client-id-peers.js";
import type { Address, IpcEndpoint } from "./ipc-endpoint.js";

export const CLIENT_ID_TOPIC = "mqtt-claim";
const TAKE_OVER_TOPIC = "mqtt-take-over";
const TAKE_OVER_TIMEOUT_MS = 5_000;

export class WorkerClientIds implements ClientIdPeers {
  constructor(
    private readonly endpoint: IpcEndpoint,
    /** The other workers. */
    private readonly peers: readonly Address[],
  ) {}

  takeOver(claim: ClientIdClaim): Promise<void> {
    // A worker that is down or silent is not waited for: it holds no connection that could answer.
    return Promise.all(this.peers.map((p) => this.endpoint.request(p, TAKE_OVER_TOPIC, claim, TAKE_OVER_TIMEOUT_MS).catch(() => undefined))).then(() => undefined);
  }

  claimed(claim: ClientIdClaim): void {
    this.endpoint.broadcast(CLIENT_ID_TOPIC, claim);
  }

  onClaimed(handler: (claim: ClientIdClaim) => void): void {
    this.endpoint.handle(CLIENT_ID_TOPIC, (body) => handler(body as ClientIdClaim));
    this.endpoint.handle(TAKE_OVER_TOPIC, (body) => {
      handler(body as ClientIdClaim);
      // Answered in a later immediate: the close's definition changes (its exclusive queues gone)
      // leave first — the mirror's flush was queued before it, and both take the primary's way in
      // order — so the asker's copy no longer holds them when it reads the answer.
      return new Promise<null>((resolve) => setImmediate(() => resolve(null)));
    });
  }
}
