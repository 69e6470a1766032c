/**
 * MQTT client ids across the workers of `coney --workers N` (src/mqtt/client-id-peers.ts): a
 * worker's CONNECT that claims a client id is broadcast over IPC (`mqtt-claim`, one-way, through
 * the primary's hub to every other worker); each worker closes its own holder of that id if it
 * claimed it earlier. Sent once per MQTT CONNECT, never per message.
 */
import type { ClientIdClaim, ClientIdPeers } from "../mqtt/client-id-peers.js";
import type { IpcEndpoint } from "./ipc-endpoint.js";

export const CLIENT_ID_TOPIC = "mqtt-claim";

export class WorkerClientIds implements ClientIdPeers {
  constructor(private readonly endpoint: IpcEndpoint) {}

  claimed(claim: ClientIdClaim): void {
    this.endpoint.broadcast(CLIENT_ID_TOPIC, claim);
  }

  onClaimed(handler: (claim: ClientIdClaim) => void): void {
    this.endpoint.handle(CLIENT_ID_TOPIC, (body) => handler(body as ClientIdClaim));
  }
}
