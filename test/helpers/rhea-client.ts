/**
 * rhea (AMQP 1.0) as promises for the tests: connect, send messages and learn each outcome,
 * receive a number of messages with credit, and wait for a link's or connection's error. Every
 * wait has a deadline (wait.ts), so a missing answer fails by name.
 */
import rhea, { type Connection, type ConnectionOptions, type Delivery, type EventContext, type Message, type Receiver, type ReceiverOptions, type Sender, type SenderOptions } from "rhea";
import { withTimeout } from "./wait.js";

const WAIT_MS = 5000;

export interface Amqp1Error {
  readonly condition: string;
  readonly description: string;
}

/** rhea gives an error as { condition, description } or as its described list of typed values. */
export function errorOf(e: unknown): Amqp1Error {
  const text = (v: unknown): string => (v !== null && typeof v === "object" && "value" in v ? String((v as { value: unknown }).value) : String(v ?? ""));
  const x = e as { value?: unknown[] } | undefined;
  if (Array.isArray(x?.value)) return { condition: text(x.value[0]), description: text(x.value[1]) };
  const y = e as { condition?: unknown; description?: unknown } | undefined;
  return { condition: y?.condition === undefined ? "none" : text(y.condition), description: text(y?.description) };
}

/** Opens a connection (SASL PLAIN with credentials; rhea uses ANONYMOUS without). Rejects with the close error. */
export function connect(port: number, options: Partial<ConnectionOptions> = {}): Promise<Connection> {
  const container = rhea.create_container();
  const c = container.connect({ host: "127.0.0.1", port, reconnect: false, username: "guest", password: "guest", ...options } as ConnectionOptions);
  return withTimeout(
    new Promise<Connection>((resolve, reject) => {
      c.on("connection_open", () => resolve(c));
      c.on("connection_error", (ctx: EventContext) => reject(Object.assign(new Error("connection error"), errorOf(ctx.connection.error))));
      c.on("disconnected", (ctx: EventContext) => reject(Object.assign(new Error(`disconnected: ${String(ctx.error ?? "")}`), { condition: "disconnected", description: String(ctx.error ?? "") })));
      c.on("error", () => undefined);
    }),
    WAIT_MS,
    "connection_open",
  );
}

/** Connects and resolves with the error the broker closes the connection with (open may come first, as RabbitMQ 4 sends it). */
export function refusedWith(port: number, options: Partial<ConnectionOptions> = {}): Promise<Amqp1Error> {
  const container = rhea.create_container();
  const c = container.connect({ host: "127.0.0.1", port, reconnect: false, username: "guest", password: "guest", ...options } as ConnectionOptions);
  return withTimeout(
    new Promise<Amqp1Error>((resolve) => {
      c.on("connection_error", (ctx: EventContext) => resolve(errorOf(ctx.connection.error)));
      c.on("disconnected", (ctx: EventContext) => resolve({ condition: "disconnected", description: String(ctx.error ?? "") }));
      c.on("error", () => undefined);
    }),
    WAIT_MS,
    "the connection to be refused",
  );
}

/** The error a connection is closed with by the broker. */
export function closedWith(c: Connection): Promise<Amqp1Error> {
  return withTimeout(
    new Promise<Amqp1Error>((resolve) => {
      c.on("connection_error", (ctx: EventContext) => resolve(errorOf(ctx.connection.error)));
      c.on("connection_close", (ctx: EventContext) => resolve(errorOf(ctx.connection.error)));
    }),
    WAIT_MS,
    "the connection to close",
  );
}

export function close(c: Connection): Promise<void> {
  return withTimeout(
    new Promise<void>((resolve) => {
      if (!c.is_open()) return resolve();
      c.once("connection_close", () => resolve());
      c.once("disconnected", () => resolve());
      c.close();
    }),
    WAIT_MS,
    "connection_close",
  );
}

export type OutcomeName = "accepted" | "released" | "rejected" | "modified";

export interface Outcome {
  readonly outcome: OutcomeName;
  readonly state: unknown;
}

/** Opens a sender and resolves once it is attached (rejects with its attach error). */
export function openSender(c: Connection, target: string | null, options: Partial<SenderOptions> = {}): Promise<Sender> {
  const s = c.open_sender({ target: target === null ? {} : { address: target }, ...options } as SenderOptions);
  return withTimeout(
    new Promise<Sender>((resolve, reject) => {
      s.once("sendable", () => resolve(s));
      s.once("sender_open", () => {
        if (options.snd_settle_mode === 1) resolve(s);
      });
      s.once("sender_error", (ctx: EventContext) => reject(Object.assign(new Error("sender error"), errorOf(ctx.sender!.error))));
    }),
    WAIT_MS,
    `sender ${target ?? "(null target)"}`,
  );
}

/** Sends the messages (unsettled) and resolves with each outcome, in order. */
export function sendAll(s: Sender, messages: readonly Message[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array(messages.length);
  let settled = 0;
  return withTimeout(
    new Promise<Outcome[]>((resolve, reject) => {
      const index = new Map<Delivery, number>();
      const on = (name: OutcomeName) => (ctx: EventContext) => {
        const i = index.get(ctx.delivery!);
        if (i === undefined) return;
        outcomes[i] = { outcome: name, state: ctx.delivery!.remote_state };
        if (++settled === messages.length) resolve(outcomes);
      };
      s.on("accepted", on("accepted"));
      s.on("released", on("released"));
      s.on("rejected", on("rejected"));
      s.on("modified", on("modified"));
      s.once("sender_error", (ctx: EventContext) => reject(Object.assign(new Error("sender error"), errorOf(ctx.sender!.error))));
      let next = 0;
      const pump = (): void => {
        while (next < messages.length && s.sendable()) {
          index.set(s.send(messages[next]!), next);
          next++;
        }
      };
      s.on("sendable", pump);
      pump();
    }),
    WAIT_MS * 2,
    `outcomes of ${messages.length} messages`,
  );
}

/** The error a link is detached with. */
export function linkError(l: Sender | Receiver): Promise<Amqp1Error> {
  return withTimeout(
    new Promise<Amqp1Error>((resolve) => {
      l.once(l.is_sender() ? "sender_error" : "receiver_error", (ctx: EventContext) => resolve(errorOf((ctx.sender ?? ctx.receiver)!.error)));
    }),
    WAIT_MS,
    "a link error",
  );
}

export interface Received {
  readonly message: Message;
  readonly delivery: Delivery;
}

/** Opens a receiver (manual settlement unless options say otherwise) and collects `n` messages. */
export function receive(c: Connection, source: string, n: number, options: Partial<ReceiverOptions> = {}): { receiver: Receiver; messages: Promise<Received[]> } {
  const receiver = c.open_receiver({ source: { address: source }, autoaccept: false, credit_window: 100, ...options } as ReceiverOptions);
  const got: Received[] = [];
  const messages = withTimeout(
    new Promise<Received[]>((resolve, reject) => {
      if (n === 0) receiver.once("receiver_open", () => resolve(got));
      receiver.on("message", (ctx: EventContext) => {
        got.push({ message: ctx.message!, delivery: ctx.delivery! });
        if (got.length === n) resolve(got);
      });
      receiver.once("receiver_error", (ctx: EventContext) => reject(Object.assign(new Error("receiver error"), errorOf(ctx.receiver!.error))));
    }),
    WAIT_MS * 2,
    `${n} messages from ${source}`,
  );
  return { receiver, messages };
}

export const data = (text: string | Buffer): unknown => rhea.message.data_section(typeof text === "string" ? Buffer.from(text) : text);

/** A data-section body as a Buffer. */
export function bodyOf(m: Message): Buffer {
  const b = m.body as { content?: Buffer } | Buffer | string;
  if (Buffer.isBuffer(b)) return b;
  if (typeof b === "string") return Buffer.from(b);
  return b.content ?? Buffer.alloc(0);
}

export { rhea };
