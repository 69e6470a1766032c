/** Shared by the shovel tests: publishing with confirms, reading a queue's counts, waiting for a shovel's state. */
import amqp from "amqplib";
import type { Api } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";

/** Publishes `n` persistent messages ("0".."n-1", size `bytes` padded) to `queue` (or an exchange) and waits for every confirm. */
export async function publishConfirmed(url: string, n: number, target: { queue?: string; exchange?: string; key?: string }, bytes = 0): Promise<void> {
  const conn = await amqp.connect(url);
  const ch = await conn.createConfirmChannel();
  if (target.queue !== undefined) await ch.assertQueue(target.queue, { durable: true });
  for (let i = 0; i < n; i++) {
    const body = Buffer.from(String(i).padEnd(bytes, "."));
    ch.publish(target.exchange ?? "", target.key ?? target.queue ?? "", body, { persistent: true, messageId: String(i) });
    if (i % 500 === 499) await ch.waitForConfirms();
  }
  await ch.waitForConfirms();
  await conn.close();
}

/** Reads every message of `queue` (acking them) until it has been idle 300 ms after at least `atLeast` arrived. */
export async function drain(url: string, queue: string, atLeast: number, timeoutMs = 20_000): Promise<amqp.ConsumeMessage[]> {
  return consumeUntil(url, queue, (got) => got.length >= atLeast, timeoutMs, (got) => `${atLeast} messages on ${queue} (got ${got.length})`);
}

/**
 * Consumes until `ids` distinct message ids arrived. At-least-once delivery may repeat messages,
 * so a count of messages would stop short of the last ones while duplicates fill it.
 */
export async function drainDistinct(url: string, queue: string, ids: number, timeoutMs = 20_000): Promise<amqp.ConsumeMessage[]> {
  const seen = new Set<unknown>();
  let scanned = 0;
  return consumeUntil(url, queue, (got) => {
    for (; scanned < got.length; scanned++) seen.add(got[scanned]!.properties.messageId);
    return seen.size >= ids;
  }, timeoutMs, (got) => `${ids} distinct message ids on ${queue} (got ${seen.size} in ${got.length} messages)`);
}

async function consumeUntil(url: string, queue: string, done: (got: amqp.ConsumeMessage[]) => boolean, timeoutMs: number, what: (got: amqp.ConsumeMessage[]) => string): Promise<amqp.ConsumeMessage[]> {
  const conn = await amqp.connect(url);
  const ch = await conn.createChannel();
  const got: amqp.ConsumeMessage[] = [];
  await ch.consume(queue, (m) => {
    if (m) {
      got.push(m);
      ch.ack(m);
    }
  });
  try {
    await eventually(() => done(got), timeoutMs);
  } catch {
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what(got)}`);
  } finally {
    await conn.close();
  }
  return got;
}

export async function queueCounts(api: Api, vhost: string, queue: string): Promise<{ messages: number; unacked: number } | null> {
  const r = await api("GET", `/api/queues/${encodeURIComponent(vhost)}/${encodeURIComponent(queue)}`);
  if (r.status !== 200) return null;
  return { messages: r.json.messages as number, unacked: r.json.messages_unacknowledged as number };
}

export async function shovelState(api: Api, vhost: string, name: string): Promise<Record<string, unknown> | undefined> {
  const r = await api("GET", `/api/shovels/${encodeURIComponent(vhost)}`);
  return (r.json as Record<string, unknown>[]).find((s) => s["name"] === name);
}

export async function waitForState(api: Api, vhost: string, name: string, state: string, ms = 10_000): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> | undefined;
  await eventually(async () => (last = await shovelState(api, vhost, name))?.["state"] === state, ms, `shovel ${name} ${state} (is ${JSON.stringify(last)})`);
  return last!;
}
