/**
 * One producer or consumer of a perf run, in a child process of its own (so the load generator's
 * own event loop is not the bottleneck being measured). It connects, waits for "start" from the
 * parent, runs for the run's duration, and sends back its count (and, for consumers, the latency
 * histogram) before exiting.
 */
import { AMQPClient } from "@cloudamqp/amqp-client";
import type { AMQPChannel } from "@cloudamqp/amqp-client";
import { AmqpRawConnection } from "./amqp-raw-client.js";
import { LatencyHistogram } from "./latency-histogram.js";
import { consumeRaw, produceRaw } from "./raw-load.js";
import { fanoutName, queueName, uriOf, type PerfOptions } from "./perf-options.js";

export type WorkerRole = "producer" | "consumer";

export interface WorkerResult {
  readonly role: WorkerRole;
  readonly count: number;
  readonly histogram?: number[];
  /** This client process's CPU (user + system) during the run, microseconds. */
  readonly cpuMicros: number;
}

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
const now = (): number => performance.timeOrigin + performance.now();

async function produce(ch: AMQPChannel, o: PerfOptions, index: number, until: number): Promise<number> {
  const exchange = o.fanout ? fanoutName(o) : "";
  const routingKey = o.fanout ? "" : queueName(o, index % o.queues);
  const props = o.persistent ? { deliveryMode: 2 } : {};
  const body = Buffer.alloc(Math.max(8, o.size));
  if (o.confirm > 0) await ch.confirmSelect();
  let sent = 0;
  let outstanding = 0;
  let wake: (() => void) | null = null;
  const confirmed = (): void => {
    outstanding--;
    if (wake && outstanding < o.confirm) {
      const w = wake;
      wake = null;
      w();
    }
  };
  while (now() < until) {
    // Batches of 100 between event-loop turns keep the socket busy without starving timers.
    for (let i = 0; i < 100; i++) {
      body.writeDoubleLE(now(), 0);
      const p = ch.basicPublish(exchange, routingKey, body, props);
      sent++;
      if (o.confirm > 0) {
        outstanding++;
        p.then(confirmed, confirmed);
        if (outstanding >= o.confirm) await new Promise<void>((r) => (wake = r));
      } else if (i === 99) {
        await p; // resolves once written: the socket's backpressure paces the producer
      }
    }
  }
  return sent;
}

async function consume(ch: AMQPChannel, o: PerfOptions, index: number, until: number): Promise<{ count: number; histogram: LatencyHistogram }> {
  const histogram = new LatencyHistogram();
  let count = 0;
  let unacked = 0;
  await ch.basicQos(o.prefetch);
  // A multiple ack every N deliveries must come before the prefetch window is full, or the
  // consumer waits for deliveries the broker may not send: at most half the prefetch.
  const ackEvery = o.prefetch > 0 ? Math.max(1, Math.min(o.multiAckEvery, Math.floor(o.prefetch / 2))) : o.multiAckEvery;
  await ch.basicConsume(queueName(o, index % o.queues), { noAck: o.autoAck, args: o.stream === true ? { "x-stream-offset": "next" } : {} }, (msg) => {
    const t = now();
    if (t <= until) {
      count++;
      if (msg.body && msg.body.length >= 8) histogram.record(t - Buffer.from(msg.body.buffer, msg.body.byteOffset, 8).readDoubleLE(0));
    }
    if (!o.autoAck && ++unacked >= ackEvery) {
      unacked = 0;
      void msg.ack(true);
    }
  });
  await new Promise((r) => setTimeout(r, Math.max(0, until - now())));
  return { count, histogram };
}

function cpuSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return d.user + d.system;
}

/** One worker's connection, whichever client it uses: what it runs, and how it ends. */
interface WorkerLoad {
  produce(until: number): Promise<number>;
  consume(until: number): Promise<{ count: number; histogram: LatencyHistogram }>;
  close(): Promise<void>;
}

async function amqpClientLoad(o: PerfOptions, index: number, role: WorkerRole): Promise<WorkerLoad> {
  const conn = await new AMQPClient(uriOf(o, role, index)).connect();
  const ch = await conn.channel();
  return { produce: (until) => produce(ch, o, index, until), consume: (until) => consume(ch, o, index, until), close: () => conn.close() };
}

/** The lean client (raw-load.ts): a failure ends the worker at once. */
async function rawLoad(o: PerfOptions, index: number, role: WorkerRole): Promise<WorkerLoad> {
  const conn = await AmqpRawConnection.open(uriOf(o, role, index));
  conn.onFailure = (e) => {
    process.stderr.write(`perf ${role} ${index}: ${e.message}\n`);
    process.exit(1);
  };
  const queue = queueName(o, index % o.queues);
  return {
    produce: (until) => produceRaw(conn, o, o.fanout ? fanoutName(o) : "", o.fanout ? "" : queue, until),
    consume: (until) => consumeRaw(conn, o, queue, until),
    close: async () => conn.close(),
  };
}

async function run(role: WorkerRole, index: number, o: PerfOptions): Promise<void> {
  const load = o.client === "raw" ? await rawLoad(o, index, role) : await amqpClientLoad(o, index, role);
  process.send!({ type: "ready" });
  const start = await new Promise<{ until: number }>((resolve) => process.once("message", (m) => resolve(m as { until: number })));
  const cpuStart = process.cpuUsage();
  let result: WorkerResult;
  if (role === "producer") {
    const count = await load.produce(start.until);
    result = { role, count, cpuMicros: cpuSince(cpuStart) };
  } else {
    const r = await load.consume(start.until);
    result = { role, count: r.count, histogram: r.histogram.counts, cpuMicros: cpuSince(cpuStart) };
  }
  process.send!({ type: "done", result }, () => {
    void load.close().finally(() => process.exit(0));
  });
}

const [role, index, json] = process.argv.slice(2);
run(role as WorkerRole, Number(index), JSON.parse(json!) as PerfOptions).catch((err: unknown) => {
  process.stderr.write(`perf ${role} ${index}: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
