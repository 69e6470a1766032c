/**
 * `coney-perf amqp10`: one AMQP 1.0 sender → one receiver on one queue, with rhea (the client
 * the ecosystem uses; a devDependency, loaded only by this command), against any AMQP 1.0
 * broker: Coney, or RabbitMQ 3.10's rabbitmq_amqp1_0 plugin with v1 addresses (`/queue/:q`,
 * declared by both). Modes: `unsettled` (the sender keeps at most --window deliveries awaiting
 * their outcome, the receiver accepts each and gives --credit credit) and `settled` (both
 * pre-settled; the sender is paced by link credit alone). Reports the receive rate over the run.
 */
import type { Connection, ConnectionOptions, EventContext } from "rhea";
import { cpuSeconds } from "./process-cpu.js";

export interface Amqp10BenchOptions {
  /** amqp://user:pass@host:port */
  readonly url: string;
  readonly size: number;
  readonly mode: "unsettled" | "settled";
  readonly credit: number;
  /** Unsettled mode: deliveries awaiting their outcome at most. */
  readonly window: number;
  readonly durationSeconds: number;
  /** The broker's pid: its CPU time (user + system) per received message is reported. */
  readonly brokerPid?: number;
}

export interface Amqp10BenchResult {
  readonly sentPerSecond: number;
  readonly receivedPerSecond: number;
  /** Broker CPU µs per received message over the measured run (with brokerPid), else NaN. */
  readonly brokerCpuMicros: number;
}

async function open(url: URL): Promise<Connection> {
  const rhea = (await import("rhea")).default;
  const container = rhea.create_container();
  // Frames still arriving after the run's close (RabbitMQ's last transfers) are not the run's concern.
  container.on("error", () => undefined);
  const c = container.connect({ host: url.hostname, port: Number(url.port || 5672), username: decodeURIComponent(url.username || "guest"), password: decodeURIComponent(url.password || "guest"), reconnect: false, max_frame_size: 131072 } as ConnectionOptions);
  return new Promise((resolve, reject) => {
    c.once("connection_open", () => resolve(c));
    c.once("connection_error", (ctx: EventContext) => reject(new Error(`connection refused: ${JSON.stringify(ctx.connection.error)}`)));
    c.once("disconnected", (ctx: EventContext) => reject(new Error(`disconnected: ${String(ctx.error ?? "")}`)));
  });
}

export async function runAmqp10Bench(o: Amqp10BenchOptions): Promise<Amqp10BenchResult> {
  const rhea = (await import("rhea")).default;
  const url = new URL(o.url);
  const address = `/queue/coney-perf-amqp10-${process.pid}-${Date.now()}`;
  const [pc, cc] = await Promise.all([open(url), open(url)]);
  const settled = o.mode === "settled";
  const body = rhea.message.data_section(Buffer.alloc(o.size, 0x61));
  let received = 0;
  let sent = 0;
  let receivedAtStart = 0;
  let sentAtStart = 0;
  const receiver = cc.open_receiver({ source: { address }, credit_window: o.credit, autoaccept: true, snd_settle_mode: settled ? 1 : 0 } as never);
  receiver.on("message", () => void received++);
  await new Promise<void>((resolve) => receiver.once("receiver_open", () => resolve()));
  const sender = pc.open_sender({ target: { address }, snd_settle_mode: settled ? 1 : 0 } as never);
  let outstanding = 0;
  let stopped = false;
  const pump = (): void => {
    while (!stopped && sender.sendable() && (settled || outstanding < o.window)) {
      sender.send({ body } as never);
      sent++;
      if (!settled) outstanding++;
    }
  };
  sender.on("sendable", pump);
  sender.on("accepted", () => {
    outstanding--;
    pump();
  });
  // One second of warm-up, then the measured run.
  await new Promise((r) => setTimeout(r, 1000));
  receivedAtStart = received;
  sentAtStart = sent;
  const cpuStart = o.brokerPid === undefined ? Number.NaN : cpuSeconds(o.brokerPid);
  const started = performance.now();
  await new Promise((r) => setTimeout(r, o.durationSeconds * 1000));
  const seconds = (performance.now() - started) / 1000;
  const cpu = o.brokerPid === undefined ? Number.NaN : cpuSeconds(o.brokerPid) - cpuStart;
  const result = { sentPerSecond: (sent - sentAtStart) / seconds, receivedPerSecond: (received - receivedAtStart) / seconds, brokerCpuMicros: (cpu * 1e6) / (received - receivedAtStart) };
  stopped = true;
  pc.close();
  cc.close();
  return result;
}

export function formatAmqp10Result(o: Amqp10BenchOptions, r: Amqp10BenchResult): string {
  return `amqp10 ${o.mode} ${o.size} B  credit ${o.credit}${o.mode === "unsettled" ? ` window ${o.window}` : ""}: sent ${Math.round(r.sentPerSecond).toLocaleString("en")} msg/s, received ${Math.round(r.receivedPerSecond).toLocaleString("en")} msg/s${Number.isNaN(r.brokerCpuMicros) ? "" : `, broker CPU ${r.brokerCpuMicros.toFixed(1)} µs/msg`}`;
}
