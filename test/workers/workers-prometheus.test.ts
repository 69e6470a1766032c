// `coney --workers 2`: each worker's Prometheus port reports the queues it leads, as each RabbitMQ
// node reports its own, so summed over the workers' scrapes (PromQL sum()) every queue counts
// once; connections are reported by the worker that holds them. Real process tree, amqplib, HTTP.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import { eventually } from "../helpers/wait.js";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";
import { queueGroupOf } from "../../src/broker/index.js";

/** Every sample of `family` in a scrape: its labels' text and its value. */
function samples(text: string, family: string): Array<{ labels: string; value: number }> {
  const out: Array<{ labels: string; value: number }> = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${family}{`) && !line.startsWith(`${family} `)) continue;
    const space = line.lastIndexOf(" ");
    out.push({ labels: line.slice(family.length, space), value: Number(line.slice(space + 1)) });
  }
  return out;
}

describe("coney --workers 2: Prometheus per worker, every queue counted once", () => {
  let p: WorkersProcess;
  let conn: ChannelModel;
  let ports: number[];

  before(async () => {
    p = await startWorkers();
    ports = p.lines.find((l) => l.msg === "Coney started")!["prometheus_ports"] as number[];
    conn = await amqp.connect(p.amqpUrl);
  });
  after(async () => {
    await conn?.close().catch(() => {});
    await p?.close();
  });

  it("a queue's figures come from its leading worker's port only; the queue counts sum to the queues declared", async () => {
    const names: string[] = [];
    for (let i = 0; names.length < 6; i++) names.push(`prom-q-${i}`);
    const ch = await conn.createConfirmChannel();
    for (const [i, q] of names.entries()) {
      await ch.assertQueue(q, { durable: false });
      for (let n = 0; n <= i; n++) ch.sendToQueue(q, Buffer.from("m"));
    }
    await ch.waitForConfirms();
    const leaders = new Set(names.map((q) => queueGroupOf("/", q, 2)));
    assert.equal(leaders.size, 2, "the queues lead on both workers");
    await eventually(async () => {
      const scrapes = await Promise.all(ports.map(async (port) => (await fetch(`http://127.0.0.1:${port}/metrics/per-object`)).text()));
      let total = 0;
      for (const [i, q] of names.entries()) {
        const holders = scrapes.map((t) => samples(t, "rabbitmq_queue_messages").filter((s) => s.labels.includes(`queue="${q}"`)));
        const reporting = holders.filter((h) => h.length > 0).length;
        if (reporting !== 1) return false;
        if (holders.flat()[0]!.value !== i + 1) return false;
      }
      for (const t of scrapes) total += samples(t, "rabbitmq_queues").reduce((a, s) => a + s.value, 0);
      return total === names.length;
    }, 10_000, "each queue on exactly one worker's scrape with its count, and rabbitmq_queues summing to 6");
  });
});
