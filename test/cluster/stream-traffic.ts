/**
 * Stream traffic for cluster tests (docs/STREAMS.md, "Replication"): declaring a stream, publishing
 * numbered messages in order with confirms (stopping, with what was confirmed, when the connection
 * breaks), and reading a stream back from an offset with each delivery's `x-stream-offset`.
 */
import amqp from "amqplib";
import type { NodeInfo, TestCluster } from "./cluster-fixture.js";

const WINDOW = 256;

export async function declareStream(url: string, name: string, args: Record<string, unknown> = {}): Promise<void> {
  const conn = await amqp.connect(url);
  try {
    const ch = await conn.createChannel();
    await ch.assertQueue(name, { durable: true, arguments: { "x-queue-type": "stream", ...args } });
  } finally {
    await conn.close();
  }
}

/**
 * Publishes `${prefix}${id}` for each id in order (persistent, confirms, up to 256 in flight)
 * through `url`; `onConfirm(count)` is told the running count. Returns the confirmed ids when all
 * are confirmed or the connection breaks.
 */
export async function publishInOrder(url: string, stream: string, prefix: string, ids: readonly number[], size = 100, onConfirm: (count: number) => void = () => undefined): Promise<Set<number>> {
  const confirmed = new Set<number>();
  const conn = await amqp.connect(url);
  conn.on("error", () => undefined);
  const ch = await conn.createConfirmChannel();
  ch.on("error", () => undefined);
  const pad = Buffer.alloc(Math.max(0, size - 20), 0x2e);
  await new Promise<void>((resolve) => {
    let next = 0;
    let inflight = 0;
    let broken = false;
    const finish = (): void => {
      broken = true;
      resolve();
    };
    conn.on("close", finish);
    ch.on("close", finish);
    const pump = (): void => {
      while (!broken && inflight < WINDOW && next < ids.length) {
        const id = ids[next++]!;
        inflight++;
        try {
          ch.publish("", stream, Buffer.concat([Buffer.from(`${prefix}${id}|`), pad]), { persistent: true }, (err: unknown) => {
            inflight--;
            if (err === null || err === undefined) {
              confirmed.add(id);
              onConfirm(confirmed.size);
            }
            if (!broken) pump();
          });
        } catch {
          return finish();
        }
      }
      if (next >= ids.length && inflight === 0) finish();
    };
    pump();
  });
  await conn.close().catch(() => undefined);
  return confirmed;
}

export interface StreamRecord {
  readonly offset: number;
  /** The body up to its `|` (the publisher's id). */
  readonly id: string;
}

/**
 * Reads `stream` from `offset` through `url` until `count` messages arrived (or, given a
 * function, until it says the records read are enough); rejects after `ms`.
 */
export async function readStream(url: string, stream: string, offset: unknown, count: number | ((read: readonly StreamRecord[]) => boolean), ms = 30_000): Promise<StreamRecord[]> {
  const enough = typeof count === "number" ? (read: readonly StreamRecord[]) => read.length >= count : count;
  const conn = await amqp.connect(url);
  conn.on("error", () => undefined);
  const out: StreamRecord[] = [];
  try {
    const ch = await conn.createChannel();
    await ch.prefetch(1000);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`read ${out.length} messages of ${stream} in ${ms} ms, not enough`)), ms);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      ch.on("close", () => {
        clearTimeout(timer);
        reject(new Error(`channel closed after ${out.length} messages`));
      });
      let finished = enough(out);
      if (finished) return done();
      void ch.consume(stream, (m) => {
        if (!m || finished) return;
        const body = m.content.toString("latin1");
        out.push({ offset: Number(m.properties.headers?.["x-stream-offset"]), id: body.slice(0, body.indexOf("|")) });
        ch.ack(m);
        if (enough(out)) {
          finished = true;
          done();
        }
      }, { arguments: { "x-stream-offset": offset } });
    });
  } finally {
    await conn.close().catch(() => undefined);
  }
  return out;
}

/** Connects through live nodes in turn until `body` succeeds (a failover closes connections meanwhile). */
export async function throughAnyNode<T>(cluster: TestCluster, body: (url: string) => Promise<T>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  let attempt = 0;
  let last: unknown = null;
  while (Date.now() < deadline) {
    const live = cluster.nodes.filter((n) => n.proc !== null);
    try {
      return await body(cluster.url(live[attempt++ % live.length]!));
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`no node served within ${ms} ms: ${(last as Error | null)?.message}`);
}

/** A node's stream ports as it registered them in etcd (its members key): plain and TLS (which must be there). */
export async function streamPortsOf(cluster: TestCluster, n: NodeInfo): Promise<{ port: number; tlsPort: number }> {
  const info = JSON.parse((await cluster.etcdKey(`members/${n.name}`)) ?? "{}") as { stream?: { port: number; advertised: { tlsPort: number | null } } };
  if (!info.stream?.advertised.tlsPort) throw new Error(`${n.name} registered no stream TLS port`);
  return { port: info.stream.port, tlsPort: info.stream.advertised.tlsPort };
}
