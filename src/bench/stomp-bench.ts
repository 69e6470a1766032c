/**
 * `coney-perf stomp`: one STOMP publisher → one subscriber on a /topic destination, against any
 * STOMP 1.2 broker (Coney or RabbitMQ's rabbitmq_stomp), optionally two brokers in the same run.
 * The destination is /topic/<key>: the subscription's queue is made for it and goes with it, so
 * nothing is left on the broker (persistent: a durable subscription queue, persistent SENDs).
 * Raw TCP clients: the publisher writes one pre-encoded SEND frame over and over while the socket
 * drains, keeping at most `window` messages published but not yet received (so the queue does not
 * grow without bound and the figure is the steady rate); the subscriber (ack:auto) counts MESSAGE
 * frames by their NUL terminators (bodies hold none). Both clients share this process's event
 * loop, the same for every broker measured.
 */
import { connect, type Socket } from "node:net";

export interface StompBenchOptions {
  /** stomp://user:pass@host:port */
  readonly url: string;
  readonly size: number;
  readonly window: number;
  readonly durationSeconds: number;
  /** SEND with persistent:true to a durable queue. */
  readonly persistent: boolean;
}

export interface StompBenchResult {
  readonly publishedPerSecond: number;
  readonly receivedPerSecond: number;
}

function open(url: URL): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(Number(url.port || 61613), url.hostname, () => resolve(s));
    s.once("error", reject);
    s.setNoDelay(true);
  });
}

/** Sends CONNECT and resolves on the first frame back (CONNECTED), rejecting on ERROR. */
async function login(url: URL): Promise<Socket> {
  const s = await open(url);
  const user = decodeURIComponent(url.username || "guest");
  const pass = decodeURIComponent(url.password || "guest");
  s.write(`CONNECT\naccept-version:1.2\nhost:/\nlogin:${user}\npasscode:${pass}\nheart-beat:0,0\n\n\u0000`);
  await new Promise<void>((resolve, reject) => {
    s.once("data", (d: Buffer) => (d.toString("latin1").startsWith("CONNECTED") ? resolve() : reject(new Error(d.toString()))));
  });
  return s;
}

export async function runStompBench(o: StompBenchOptions): Promise<StompBenchResult> {
  const url = new URL(o.url);
  const queue = `coney-perf-stomp-${process.pid}-${Date.now()}`;
  const sub = await login(url);
  let received = 0;
  sub.on("data", (d: Buffer) => {
    let at = d.indexOf(0);
    while (at >= 0) {
      received++;
      at = d.indexOf(0, at + 1);
    }
  });
  sub.write(`SUBSCRIBE\nid:0\ndestination:/topic/${queue}\nack:auto\n${o.persistent ? "durable:true\n" : ""}receipt:sub\n\n\u0000`);
  await new Promise((r) => setTimeout(r, 300));
  received = 0;
  const pub = await login(url);
  const body = Buffer.alloc(o.size, 120);
  const frame = Buffer.concat([Buffer.from(`SEND\ndestination:/topic/${queue}\n${o.persistent ? "persistent:true\n" : ""}content-length:${o.size}\n\n`), body, Buffer.from([0])]);
  let published = 0;
  let running = true;
  const pump = (): void => {
    while (running && published - received < o.window) {
      published++;
      if (!pub.write(frame)) return void pub.once("drain", pump);
    }
    if (running) setImmediate(pump);
  };
  const started = performance.now();
  pump();
  await new Promise((r) => setTimeout(r, o.durationSeconds * 1000));
  running = false;
  const seconds = (performance.now() - started) / 1000;
  const result = { publishedPerSecond: published / seconds, receivedPerSecond: received / seconds };
  pub.write("DISCONNECT\n\n\u0000");
  sub.write("DISCONNECT\n\n\u0000");
  pub.destroy();
  sub.destroy();
  return result;
}

export function formatStompResult(name: string, o: StompBenchOptions, r: StompBenchResult): string {
  const mode = o.persistent ? "persistent" : "transient";
  return `stomp ${name.padEnd(10)} ${mode.padEnd(10)} ${String(o.size).padStart(6)} B  published ${Math.round(r.publishedPerSecond).toLocaleString("en-US").padStart(9)} msg/s  received ${Math.round(r.receivedPerSecond).toLocaleString("en-US").padStart(9)} msg/s`;
}
