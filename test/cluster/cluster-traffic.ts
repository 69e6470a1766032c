/**
 * Client traffic for cluster tests: publishing with confirms through whichever node answers,
 * reconnecting and republishing what was not confirmed when a connection drops (duplicates of
 * unconfirmed messages are allowed; a lost confirmed one is what the tests look for), and reading
 * a queue back.
 */
import type { Socket } from "node:net";
import amqp from "amqplib";
import { TestCluster, type NodeInfo } from "./cluster-fixture.js";

export interface PublishRun {
  readonly confirmed: Set<number>;
  /** Milliseconds from the kill to the first confirm after it; -1 when nothing was killed. */
  failoverMs: number;
  reconnects: number;
  /** When each confirm arrived (Date.now()), in arrival order. */
  readonly confirmTimes: number[];
}

const WINDOW = 256;

/**
 * Publishes `total` persistent messages `${prefix}${i}` to `queue` with confirms. When
 * `killAfter` of them are confirmed, `onKill` runs (it kills a node) once.
 */
export async function publishThroughFailures(
  cluster: TestCluster,
  queue: string,
  prefix: string,
  total: number,
  killAfter: number,
  onKill: () => Promise<void>,
  stopWhen: () => boolean = () => false,
  deadlineMs = 120_000,
  /** The node to connect through first (e.g. a follower, to go through its proxy). */
  first: NodeInfo | null = null,
): Promise<PublishRun> {
  const run: PublishRun = { confirmed: new Set(), failoverMs: -1, reconnects: 0, confirmTimes: [] };
  const deadline = Date.now() + deadlineMs;
  let killedAt = 0;
  let attempt = 0;
  while (run.confirmed.size < total && !stopWhen()) {
    if (Date.now() > deadline) throw new Error(`publishing timed out with ${run.confirmed.size}/${total} confirmed`);
    const live = cluster.nodes.filter((n) => n.proc !== null);
    const node = attempt === 0 && first !== null && first.proc !== null ? first : live[attempt % live.length]!;
    attempt++;
    let conn: amqp.ChannelModel;
    let ch: amqp.ConfirmChannel;
    try {
      conn = await amqp.connect(cluster.url(node));
      conn.on("error", () => undefined);
      ch = await conn.createConfirmChannel();
      await ch.assertQueue(queue, { durable: true });
    } catch {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    run.reconnects++;
    const openedAt = Date.now();
    const todo: number[] = [];
    for (let i = 0; i < total; i++) if (!run.confirmed.has(i)) todo.push(i);
    await new Promise<void>((resolve) => {
      let inflight = 0;
      let next = 0;
      let broken = false;
      // Confirms that never come (a leader that accepts but cannot confirm) must not hold the run
      // past its deadline or its stop condition: both are checked on a timer, not only per confirm.
      const watch = setInterval(() => {
        if (Date.now() > deadline || stopWhen()) finish();
      }, 100);
      const finish = (): void => {
        broken = true;
        clearInterval(watch);
        resolve();
      };
      conn.on("error", () => undefined);
      conn.on("close", finish);
      ch.on("error", () => undefined);
      ch.on("close", finish);
      const pump = (): void => {
        if (stopWhen()) return finish();
        while (!broken && inflight < WINDOW && next < todo.length) {
          const id = todo[next++]!;
          inflight++;
          try {
            // messageId tells a republished copy (a new message) from a broker redelivery (the same one).
            ch.publish("", queue, Buffer.from(`${prefix}${id}`), { persistent: true, messageId: `${prefix}${id}#${run.reconnects}` }, (err: unknown) => {
              inflight--;
              if (err === null || err === undefined) {
                run.confirmed.add(id);
                run.confirmTimes.push(Date.now());
                // The first confirm of a connection opened after the kill: service is back.
                if (killedAt > 0 && openedAt > killedAt && run.failoverMs < 0) run.failoverMs = Date.now() - killedAt;
                if (killedAt === 0 && run.confirmed.size >= killAfter) {
                  killedAt = Date.now();
                  void onKill();
                }
              }
              if (!broken) pump();
            });
          } catch {
            return finish();
          }
        }
        if (next >= todo.length && inflight === 0) finish();
      };
      pump();
    });
    await closeWithin(conn, 2000);
  }
  return run;
}

/** Closes a connection, or drops its socket if the broker does not answer the close in time. */
async function closeWithin(conn: amqp.ChannelModel, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([conn.close().then(() => true, () => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  clearTimeout(timer);
  if (!closed) (conn.connection as unknown as { stream: Socket }).stream.destroy();
}

/** Reads every message of `queue` (through any live node, reconnecting) until all `expected` bodies are seen or `ms` pass. */
export async function drainQueue(cluster: TestCluster, queue: string, expected: ReadonlySet<string>, ms = 60_000, counts: { duplicates: number } = { duplicates: 0 }): Promise<Set<string>> {
  const seen = new Set<string>();
  const deadline = Date.now() + ms;
  let missing = expected.size;
  let attempt = 0;
  while (Date.now() < deadline && missing > 0) {
    const live = cluster.nodes.filter((n) => n.proc !== null);
    const node: NodeInfo = live[attempt++ % live.length]!;
    try {
      const conn = await amqp.connect(cluster.url(node));
      const ch = await conn.createChannel();
      await ch.prefetch(2000);
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        conn.on("error", () => undefined);
        conn.on("close", () => resolve());
        ch.on("error", () => undefined);
        ch.on("close", () => resolve());
        void ch.consume(queue, (m) => {
          if (!m) return;
          const body = m.content.toString();
          if (!seen.has(body)) {
            seen.add(body);
            if (expected.has(body) && --missing === 0) resolve();
          } else {
            counts.duplicates++;
          }
          ch.ack(m);
        });
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      });
      clearTimeout(timer);
      await closeWithin(conn, 2000);
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return seen;
}

/** A 3-node cluster with every node in sync, closed (logs printed on failure) whatever the body does. */
export async function withCluster(body: (c: TestCluster) => Promise<void>, opts: { leaseTtl?: number; extraArgs?: string[] } = {}): Promise<void> {
  const cluster = new TestCluster(3, opts.leaseTtl ?? 3, opts.extraArgs ?? []);
  try {
    await cluster.start();
    await cluster.waitForInSync(3);
    await body(cluster);
  } catch (err) {
    console.error(cluster.logs());
    throw err;
  } finally {
    await cluster.close();
  }
}

export const ids = (prefix: string, s: ReadonlySet<number>): Set<string> => new Set([...s].map((i) => `${prefix}${i}`));
