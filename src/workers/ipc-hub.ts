/**
 * The primary's side of the IPC messages (ipc-endpoint.ts): its own endpoint ("primary") and the
 * router that forwards a worker's envelope to the worker it names, to everyone (`*`), or to the
 * primary itself. A request to a worker that is not running is answered at once with an error.
 */
import { EVERYONE, IpcEndpoint, PRIMARY, type Address, type Envelope } from "./ipc-endpoint.js";

export class IpcHub {
  readonly endpoint: IpcEndpoint;
  private readonly channels = new Map<Address, (e: Envelope) => void>();

  constructor() {
    this.endpoint = new IpcEndpoint(PRIMARY, (e) => this.route(e));
  }

  /** A worker's channel is up (forked): envelopes for `name` go to `deliver`. */
  attach(name: Address, deliver: (e: Envelope) => void): void {
    this.channels.set(name, deliver);
  }

  /** Its process exited: nothing more reaches it, and the primary's requests to it fail now. */
  detach(name: Address): void {
    this.channels.delete(name);
    this.endpoint.failPending(name, `${name} is not running`);
  }

  /** An envelope from a worker's channel. */
  route(e: Envelope): void {
    if (e.to === PRIMARY) return this.endpoint.receive(e);
    if (e.to === EVERYONE) {
      for (const [name, deliver] of this.channels) if (name !== e.from) deliver(e);
      if (e.from !== PRIMARY) this.endpoint.receive(e);
      return;
    }
    const deliver = this.channels.get(e.to);
    if (deliver !== undefined) return deliver(e);
    if (e.kind === "request") this.route({ coney: "ipc", kind: "reply", from: e.to, to: e.from, topic: e.topic, ...(e.id !== undefined ? { id: e.id } : {}), error: `${e.to} is not running` });
  }
}
