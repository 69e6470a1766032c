/**
 * coney-perf shovel: how long a dynamic shovel takes to move a filled queue. It fills a durable
 * source queue at `srcUri` with N persistent messages (confirmed), then defines — through the
 * management API of the broker that runs the shovel (`http`: Coney or RabbitMQ alike) — an
 * on-confirm shovel with `src-delete-after: queue-length`, which moves exactly those messages
 * and deletes itself once the last is confirmed at the destination; the time is from the PUT to
 * the parameter's disappearance. With `destCheckUri` it then counts the destination queue.
 */
import { AMQPClient } from "@cloudamqp/amqp-client";

export interface ShovelBenchOptions {
  /** Where the source queue is, as this process reaches it. */
  readonly srcUri: string;
  /** The same source as the shovel's broker reaches it (defaults to srcUri). */
  readonly shovelSrcUri: string;
  /** The destination as the shovel's broker reaches it (`amqp://` = itself). */
  readonly destUri: string;
  /** The destination as this process reaches it, to count what arrived; null: not counted. */
  readonly destCheckUri: string | null;
  /** Management API of the broker that runs the shovel, with credentials (http://guest:guest@127.0.0.1:15672). */
  readonly http: string;
  readonly vhost: string;
  readonly messages: number;
  readonly size: number;
  readonly prefetch: number;
  readonly queue: string;
}

export interface ShovelBenchResult {
  readonly seconds: number;
  readonly messagesPerSecond: number;
  readonly arrived: number | null;
}

async function api(base: string, method: string, path: string, body?: unknown): Promise<Response> {
  const u = new URL(base);
  const auth = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString("base64")}`;
  return fetch(`${u.protocol}//${u.host}${path}`, { method, headers: { authorization: auth, "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

async function fill(o: ShovelBenchOptions): Promise<void> {
  const conn = new AMQPClient(o.srcUri);
  await conn.connect();
  const ch = await conn.channel();
  await ch.queueDeclare(o.queue, { durable: true });
  await ch.queuePurge(o.queue);
  await ch.confirmSelect();
  const body = Buffer.alloc(o.size, 120);
  const pending: Promise<number>[] = [];
  for (let i = 0; i < o.messages; i++) {
    pending.push(ch.basicPublish("", o.queue, body, { deliveryMode: 2 }));
    if (pending.length >= 1000) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
  await conn.close();
}

async function emptyDest(uri: string, queue: string): Promise<void> {
  const conn = new AMQPClient(uri);
  await conn.connect();
  const ch = await conn.channel();
  await ch.queueDelete(queue);
  await conn.close();
}

async function countDest(uri: string, queue: string): Promise<number> {
  const conn = new AMQPClient(uri);
  await conn.connect();
  const ch = await conn.channel();
  const n = (await ch.queueDeclare(queue, { passive: true })).messageCount;
  await conn.close();
  return n;
}

export async function runShovelBench(o: ShovelBenchOptions): Promise<ShovelBenchResult> {
  const dest = `${o.queue}-dest`;
  const path = `/api/parameters/shovel/${encodeURIComponent(o.vhost)}/coney-perf-shovel`;
  await api(o.http, "DELETE", path);
  if (o.destCheckUri !== null) await emptyDest(o.destCheckUri, dest);
  await fill(o);
  const value = { "src-uri": o.shovelSrcUri, "src-queue": o.queue, "src-delete-after": "queue-length", "src-prefetch-count": o.prefetch, "dest-uri": o.destUri, "dest-queue": dest, "ack-mode": "on-confirm" };
  const started = performance.now();
  const put = await api(o.http, "PUT", path, { value, component: "shovel", vhost: o.vhost, name: "coney-perf-shovel" });
  if (put.status >= 300) throw new Error(`the shovel was refused: ${put.status} ${await put.text()}`);
  // The shovel deletes itself once the last message is confirmed at the destination.
  for (;;) {
    const r = await api(o.http, "GET", path);
    await r.arrayBuffer();
    if (r.status === 404) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const seconds = (performance.now() - started) / 1000;
  const arrived = o.destCheckUri === null ? null : await countDest(o.destCheckUri, dest);
  return { seconds, messagesPerSecond: o.messages / seconds, arrived };
}

export function formatShovelResult(o: ShovelBenchOptions, r: ShovelBenchResult): string {
  const counted = r.arrived === null ? "" : `, ${r.arrived} in the destination queue`;
  return `shovel: ${o.messages} persistent ${o.size} B messages on-confirm (prefetch ${o.prefetch}) in ${r.seconds.toFixed(2)} s = ${Math.round(r.messagesPerSecond)} msg/s${counted}`;
}
