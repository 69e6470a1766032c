/**
 * Seeded bodies for the lent-body tests (src/listeners/slab-pool.ts): each message's id is its
 * seed, which fixes its size and bytes, so every delivery can be checked byte for byte. The test
 * pools poison the slabs they take back (0xdb): a body read after a wrong release shows it.
 */
import assert from "node:assert/strict";
import { AMQPClient, type AMQPChannel, type AMQPMessage } from "@cloudamqp/amqp-client";
import type { StartOptions } from "../../src/start-broker.js";
import { SlabPool } from "../../src/listeners/slab-pool.js";
import { LARGE_SLAB } from "../../src/listeners/slab-reads.js";
import { startTestBroker, type TestBroker } from "./broker.js";
import { seededBytes } from "./seeded-bytes.js";
import { withTimeout } from "./wait.js";

export const body = seededBytes;

/** A pool of the AMQP listener's slabs that poisons each slab it takes back (0xdb). */
function poisoningPool(): SlabPool {
  return new SlabPool({ slabBytes: LARGE_SLAB, maxFree: 64, poison: true });
}

/** A broker reading AMQP into a poisoning pool, and one client connection to it. */
export interface PooledBroker {
  readonly broker: TestBroker;
  readonly pool: SlabPool;
  readonly conn: AMQPClient;
  close(): Promise<void>;
}

export async function startPooledBroker(options: StartOptions = {}): Promise<PooledBroker> {
  const pool = poisoningPool();
  const broker = await startTestBroker({ ...options, readSlabs: pool });
  const conn = new AMQPClient(broker.amqpUrl);
  try {
    await conn.connect();
  } catch (err) {
    await broker.close();
    throw err;
  }
  return {
    broker,
    pool,
    conn,
    async close() {
      await conn.close();
      await broker.close();
    },
  };
}

/** Sizes cycle through small (copied) and larger (leased) bodies, across the lease threshold (256 B), frame and slab boundaries. */
const SIZES = [65_536, 100, 8_185, 4_096, 4_095, 200_003, 32_768, 1, 1_000, 255, 256];

export function sizeOf(seed: number): number {
  return SIZES[seed % SIZES.length]!;
}

/** Checks a delivery against what its seed (the message id) says it must be. */
export function check(m: AMQPMessage): number {
  const seed = Number(m.properties.messageId);
  const got = Buffer.from(m.body ?? new Uint8Array(0));
  const want = body(sizeOf(seed), seed);
  assert.equal(got.length, want.length, `message ${seed}: length`);
  if (!got.equals(want)) {
    const at = got.findIndex((b, i) => b !== want[i]);
    assert.fail(`message ${seed} (${want.length} bytes) differs from byte ${at} (got 0x${got[at]!.toString(16)})`);
  }
  return seed;
}

/** Publishes with confirms (once per channel: the client counts confirms from its confirm.select). */
export async function publishMany(ch: AMQPChannel, exchange: string, routingKey: string, from: number, count: number, persistent = false, headers: Record<string, number> = {}): Promise<void> {
  await ch.confirmSelect();
  const sent: Promise<number>[] = [];
  for (let seed = from; seed < from + count; seed++) {
    sent.push(ch.basicPublish(exchange, routingKey, body(sizeOf(seed), seed), { messageId: String(seed), deliveryMode: persistent ? 2 : 1, headers }));
  }
  await Promise.all(sent);
}

/** Large bodies through a queue of their own, consumed and acked: slabs are recycled (and poisoned) meanwhile. */
export async function churn(conn: AMQPClient, queue: string, from: number): Promise<void> {
  const ch = await conn.channel();
  await ch.queueDeclare(queue, { exclusive: true });
  const consumed = consumeChecked(await conn.channel(), queue, 100);
  await publishMany(ch, "", queue, from, 100);
  await consumed;
}

/**
 * Consumes `count` messages from `queue`, checking each; acks as `opts` says (after a delay, or
 * never with noAck). Returns once every ack was sent: a late ack still pending could otherwise
 * fire after the caller closed the channel.
 */
export async function consumeChecked(ch: AMQPChannel, queue: string, count: number, opts: { noAck?: boolean; ackDelayMs?: number; prefetch?: number; args?: Record<string, unknown> } = {}): Promise<number[]> {
  if (opts.prefetch !== undefined) await ch.prefetch(opts.prefetch);
  const seen: number[] = [];
  const acks: Promise<void>[] = [];
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const delay = opts.ackDelayMs ?? 0;
  await ch.basicConsume(queue, { noAck: opts.noAck ?? false, args: opts.args ?? {} }, (m) => {
    seen.push(check(m));
    if (!opts.noAck) acks.push(delay > 0 ? new Promise((resolve, reject) => setTimeout(() => m.ack().then(resolve, reject), delay)) : m.ack());
    if (seen.length > count) assert.fail(`more than ${count} messages from ${queue}`);
    if (seen.length === count) done();
  });
  await withTimeout(all, 20_000, `${count} messages from ${queue}`);
  await withTimeout(Promise.all(acks), 20_000, `the acks of ${count} messages from ${queue}`);
  return seen;
}
