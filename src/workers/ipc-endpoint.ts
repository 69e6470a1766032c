/**
 * The messaging face between the processes of `coney --workers N` (docs/CLUSTERING.md, "One
 * machine: IPC messages"): `send` (one-way), `broadcast` (one-way to every other process) and
 * `request` (an answer matched by id, or an error after a timeout). It rides on the node:cluster
 * IPC channel; the primary is the hub that forwards envelopes between workers (ipc-hub.ts), so a
 * worker addresses `primary` or `w<i>` and never knows another worker's channel.
 *
 * This carries control traffic only (tables, heartbeats, figures, definition changes); forwarded
 * messages go over the links between workers, never through the primary.
 */

/** An address: "primary", "w<i>", or "*" (every process but the sender). */
export type Address = string;
export const PRIMARY: Address = "primary";
export const EVERYONE: Address = "*";

export interface Envelope {
  /** Marks Coney's envelopes among whatever else the channel carries (node:cluster's own messages). */
  readonly coney: "ipc";
  readonly kind: "send" | "request" | "reply";
  readonly from: Address;
  readonly to: Address;
  readonly topic: string;
  /** Matches a reply to its request (per requesting endpoint). */
  readonly id?: number;
  readonly body?: unknown;
  /** A reply's failure: the handler threw, there was no handler, or the target is not running. */
  readonly error?: string;
}

export function isEnvelope(m: unknown): m is Envelope {
  return typeof m === "object" && m !== null && (m as { coney?: unknown }).coney === "ipc";
}

/** A handler's answer to a request (ignored for `send`); throwing answers the request with an error. */
export type Handler = (body: unknown, from: Address) => unknown;

interface Pending {
  readonly to: Address;
  resolve(body: unknown): void;
  reject(err: Error): void;
  readonly timer: NodeJS.Timeout;
}

export class IpcEndpoint {
  private readonly handlers = new Map<string, Handler>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  /** `transmit` hands an envelope to the channel (the worker's `process.send`, or the hub's router). */
  constructor(
    readonly self: Address,
    private readonly transmit: (e: Envelope) => void,
  ) {}

  /** One handler per topic; its return value (or promise) answers a request. */
  handle(topic: string, handler: Handler): void {
    this.handlers.set(topic, handler);
  }

  send(to: Address, topic: string, body?: unknown): void {
    if (this.closed) return;
    this.transmit({ coney: "ipc", kind: "send", from: this.self, to, topic, body });
  }

  broadcast(topic: string, body?: unknown): void {
    this.send(EVERYONE, topic, body);
  }

  request(to: Address, topic: string, body: unknown, timeoutMs: number): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error(`${topic} to ${to}: the IPC channel is closed`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${topic} to ${to}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { to, resolve, reject, timer });
      this.transmit({ coney: "ipc", kind: "request", from: this.self, to, topic, id, body });
    });
  }

  /** An envelope addressed to this endpoint (or to everyone) arrived. */
  receive(e: Envelope): void {
    if (e.kind === "reply") {
      const p = e.id === undefined ? undefined : this.pending.get(e.id);
      if (p === undefined) return; // answered after its timeout: already rejected
      this.pending.delete(e.id!);
      clearTimeout(p.timer);
      if (e.error !== undefined) p.reject(new Error(e.error));
      else p.resolve(e.body);
      return;
    }
    const handler = this.handlers.get(e.topic);
    if (e.kind === "send") {
      handler?.(e.body, e.from);
      return;
    }
    const reply = (body: unknown, error?: string): void => {
      if (this.closed) return;
      this.transmit({ coney: "ipc", kind: "reply", from: this.self, to: e.from, topic: e.topic, ...(e.id !== undefined ? { id: e.id } : {}), ...(error !== undefined ? { error } : { body }) });
    };
    if (handler === undefined) return reply(undefined, `${this.self} has no handler for ${e.topic}`);
    try {
      Promise.resolve(handler(e.body, e.from)).then(
        (body) => reply(body),
        (err: unknown) => reply(undefined, err instanceof Error ? err.message : String(err)),
      );
    } catch (err) {
      reply(undefined, err instanceof Error ? err.message : String(err));
    }
  }

  /** Fails the requests waiting on `to` at once (its process exited: no answer will come). */
  failPending(to: Address, why: string): void {
    for (const [id, p] of this.pending) {
      if (p.to !== to) continue;
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.reject(new Error(why));
    }
  }

  /** The channel is gone: every waiting request fails, later calls do nothing. */
  close(why: string): void {
    this.closed = true;
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.reject(new Error(why));
    }
  }
}
