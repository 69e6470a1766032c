/**
 * The primary's side of the IPC messages (ipc-endpoint.ts): its own endpoint ("primary") and the
 * router that forwards a worker's envelope to the worker it names, to everyone (`*`), or to the
 * primary itself. A request to a worker that is not running is answered at once with an error.
 *
 * Invariant: nothing is handed to a worker before it has spoken. A forked worker spends its first
 * few hundred milliseconds loading code, and Node drops an IPC message that arrives before the
 * process listens for `message` (nothing queues it): a definitions snapshot asked by a worker that
 * loaded faster was lost that way, holding its start for the request's whole timeout. A worker
 * listens before it sends anything (worker-process.ts), so its first envelope opens its channel
 * and what waited for it is delivered then, in order.
 */
import { EVERYONE, IpcEndpoint, PRIMARY, type Address, type Envelope } from "./ipc-endpoint.js";

interface Channel {
  readonly deliver: (e: Envelope) => void;
  /** What came for it before it spoke; null once it has. */
  waiting: Envelope[] | null;
}

export class IpcHub {
  readonly endpoint: IpcEndpoint;
  private readonly channels = new Map<Address, Channel>();

  constructor() {
    this.endpoint = new IpcEndpoint(PRIMARY, (e) => this.route(e));
  }

  /** A worker's channel is up (forked): envelopes for `name` go to `deliver` once it has spoken. */
  attach(name: Address, deliver: (e: Envelope) => void): void {
    this.channels.set(name, { deliver, waiting: [] });
  }

  /** `name` listens now (it sent an envelope): what waited for it is delivered, in order. */
  heard(name: Address): void {
    const channel = this.channels.get(name);
    if (channel === undefined || channel.waiting === null) return;
    const waiting = channel.waiting;
    channel.waiting = null;
    for (const e of waiting) channel.deliver(e);
  }

  /** Its process exited: nothing more reaches it, and every request to it (the primary's, and those that waited for it) fails now. */
  detach(name: Address): void {
    const waiting = this.channels.get(name)?.waiting ?? [];
    this.channels.delete(name);
    this.endpoint.failPending(name, `${name} is not running`);
    for (const e of waiting) if (e.kind === "request" && e.from !== PRIMARY) this.notRunning(e);
  }

  /** An envelope from a worker's channel. */
  route(e: Envelope): void {
    if (e.from !== PRIMARY) this.heard(e.from);
    if (e.to === PRIMARY) return this.endpoint.receive(e);
    if (e.to === EVERYONE) {
      for (const [name, channel] of this.channels) if (name !== e.from) this.hand(channel, e);
      if (e.from !== PRIMARY) this.endpoint.receive(e);
      return;
    }
    const channel = this.channels.get(e.to);
    if (channel !== undefined) return this.hand(channel, e);
    if (e.kind === "request") this.notRunning(e);
  }

  private hand(channel: Channel, e: Envelope): void {
    if (channel.waiting !== null) channel.waiting.push(e);
    else channel.deliver(e);
  }

  private notRunning(e: Envelope): void {
    this.route({ coney: "ipc", kind: "reply", from: e.to, to: e.from, topic: e.topic, ...(e.id !== undefined ? { id: e.id } : {}), error: `${e.to} is not running` });
  }
}
