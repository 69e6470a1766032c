/**
 * The sender or the receiver of a `coney-perf amqp10` run, in a child process of its own (so
 * the two do not share one event loop, and neither is the broker's). It connects and attaches,
 * says "ready", then on {from, until} from the parent starts, counts the deliveries it sent or
 * received between `from` and `until` and its own CPU over that span, reports, and exits.
 * `raw` is the lean client (amqp10-raw-load.ts); `rhea` is the library most Node users run.
 */
import type { Connection, ConnectionOptions, EventContext } from "rhea";
import { Amqp10RawConnection } from "./amqp10-raw-client.js";
import { RawReceiver, RawSender } from "./amqp10-raw-load.js";

export type Amqp10Client = "raw" | "rhea";
export type Amqp10Role = "sender" | "receiver";

export interface Amqp10WorkerOptions {
  readonly url: string;
  readonly address: string;
  readonly size: number;
  readonly settled: boolean;
  readonly credit: number;
  readonly window: number;
  readonly client: Amqp10Client;
  /** The max-frame-size the client announces (and sends in). */
  readonly frameMax: number;
}

export interface Amqp10WorkerResult {
  readonly role: Amqp10Role;
  readonly count: number;
  /** This process's CPU (user + system) between from and until, microseconds. */
  readonly cpuMicros: number;
}

/** A started link, whichever client runs it. */
interface Load {
  start(): void;
  stop(): void;
  count(): number;
  close(): void;
}

async function rawLoad(role: Amqp10Role, o: Amqp10WorkerOptions): Promise<Load> {
  const c = await Amqp10RawConnection.open(o.url, { role, address: o.address, settled: o.settled }, o.frameMax);
  c.onFailure = (e) => {
    process.stderr.write(`amqp10 ${role}: ${e.message}\n`);
    process.exit(1);
  };
  if (role === "sender") {
    const s = new RawSender(c, o.settled, o.window, o.size);
    c.setLoad(s);
    return { start: () => s.start(), stop: () => s.stop(), count: () => s.count, close: () => c.close() };
  }
  const r = new RawReceiver(c, o.settled, o.credit);
  c.setLoad(r);
  return { start: () => r.start(), stop: () => undefined, count: () => r.count, close: () => c.close() };
}

async function rheaConnection(url: URL, frameMax: number): Promise<Connection> {
  const rhea = (await import("rhea")).default;
  const container = rhea.create_container();
  // Frames still arriving after the run's close are not the run's concern.
  container.on("error", () => undefined);
  const c = container.connect({ host: url.hostname, port: Number(url.port || 5672), username: decodeURIComponent(url.username || "guest"), password: decodeURIComponent(url.password || "guest"), reconnect: false, max_frame_size: frameMax } as ConnectionOptions);
  return new Promise((resolve, reject) => {
    c.once("connection_open", () => resolve(c));
    c.once("connection_error", (ctx: EventContext) => reject(new Error(`connection refused: ${JSON.stringify(ctx.connection.error)}`)));
    c.once("disconnected", (ctx: EventContext) => reject(new Error(`disconnected: ${String(ctx.error ?? "")}`)));
  });
}

async function rheaLoad(role: Amqp10Role, o: Amqp10WorkerOptions): Promise<Load> {
  const rhea = (await import("rhea")).default;
  const c = await rheaConnection(new URL(o.url), o.frameMax);
  const mode = o.settled ? 1 : 0;
  let count = 0;
  if (role === "receiver") {
    // Credit from the attach: nothing is sent to the queue before the sender starts.
    const receiver = c.open_receiver({ source: { address: o.address }, credit_window: o.credit, autoaccept: true, snd_settle_mode: mode } as never);
    receiver.on("message", () => void count++);
    await new Promise<void>((resolve) => receiver.once("receiver_open", () => resolve()));
    return { start: () => undefined, stop: () => undefined, count: () => count, close: () => c.close() };
  }
  const sender = c.open_sender({ target: { address: o.address }, snd_settle_mode: mode } as never);
  await new Promise<void>((resolve) => sender.once("sender_open", () => resolve()));
  const body = rhea.message.data_section(Buffer.alloc(o.size));
  let outstanding = 0;
  let running = false;
  const pump = (): void => {
    while (running && sender.sendable() && (o.settled || outstanding < o.window)) {
      sender.send({ body } as never);
      count++;
      if (!o.settled) outstanding++;
    }
  };
  sender.on("sendable", pump);
  sender.on("accepted", () => {
    outstanding--;
    pump();
  });
  return {
    start: () => {
      running = true;
      pump();
    },
    stop: () => void (running = false),
    count: () => count,
    close: () => c.close(),
  };
}

async function run(role: Amqp10Role, o: Amqp10WorkerOptions): Promise<void> {
  const load = o.client === "rhea" ? await rheaLoad(role, o) : await rawLoad(role, o);
  process.send!({ type: "ready" });
  const { from, until } = await new Promise<{ from: number; until: number }>((resolve) => process.once("message", (m) => resolve(m as { from: number; until: number })));
  load.start();
  await new Promise((r) => setTimeout(r, Math.max(0, from - Date.now())));
  const countAtFrom = load.count();
  const cpuAtFrom = process.cpuUsage();
  await new Promise((r) => setTimeout(r, Math.max(0, until - Date.now())));
  const count = load.count() - countAtFrom;
  const cpu = process.cpuUsage(cpuAtFrom);
  load.stop();
  const result: Amqp10WorkerResult = { role, count, cpuMicros: cpu.user + cpu.system };
  process.send!({ type: "done", result }, () => {
    load.close();
    process.exit(0);
  });
}

const [role, json] = process.argv.slice(2);
run(role as Amqp10Role, JSON.parse(json!) as Amqp10WorkerOptions).catch((err: unknown) => {
  process.stderr.write(`amqp10 ${role}: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
