// Bodies that arrive in several frames are kept as their frames' payloads (never joined on the
// hot path) and re-cut to each consumer's frame_max: every byte must still arrive in order,
// across unlike frame sizes, through the message store and a restart, and through the HTTP get.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AMQPClient, type AMQPMessage } from "@cloudamqp/amqp-client";
import { startTestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { seededBytes } from "../helpers/seeded-bytes.js";

const body = seededBytes;

// Around frame boundaries for frame_max 8192 (8,184 payload bytes) and 20,000 (19,992), and large.
const SIZES = [0, 1, 8183, 8184, 8185, 19_992, 19_993, 65_536, 200_003];

async function consumeAll(url: string, queue: string, count: number): Promise<Buffer[]> {
  const conn = await new AMQPClient(url).connect();
  const ch = await conn.channel();
  const got: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    ch.basicConsume(queue, { noAck: true }, (m: AMQPMessage) => {
      got.push(Buffer.from(m.body ?? new Uint8Array(0)));
      if (got.length === count) resolve();
    }).catch(reject);
  });
  await conn.close();
  return got;
}

describe("bodies in several frames", () => {
  it("arrive whole at consumers whose frame_max differs from the publisher's", async () => {
    const broker = await startTestBroker();
    try {
      const pub = await new AMQPClient(`${broker.amqpUrl}?frameMax=8192`).connect();
      const ch = await pub.channel();
      await ch.queueDeclare("big-a");
      await ch.queueDeclare("big-b");
      await ch.confirmSelect();
      for (const [i, size] of SIZES.entries()) {
        await ch.basicPublish("", "big-a", body(size, i));
        await ch.basicPublish("", "big-b", body(size, i));
      }
      await pub.close();
      const want = SIZES.map((size, i) => body(size, i));
      assert.deepEqual(await consumeAll(`${broker.amqpUrl}?frameMax=20000`, "big-a", SIZES.length), want, "re-cut to larger frames");
      assert.deepEqual(await consumeAll(`${broker.amqpUrl}?frameMax=8192`, "big-b", SIZES.length), want, "same frames as published");
    } finally {
      await broker.close();
    }
  });

  it("are stored, recovered and served by the HTTP get intact", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-big-"));
    try {
      const first = await startTestBroker({ dataDir });
      const pub = await new AMQPClient(`${first.amqpUrl}?frameMax=8192`).connect();
      const ch = await pub.channel();
      await ch.queueDeclare("big-durable", { durable: true });
      await ch.confirmSelect();
      for (const [i, size] of SIZES.entries()) await ch.basicPublish("", "big-durable", body(size, i), { deliveryMode: 2 });
      await pub.close();
      await first.close();

      const second = await startTestBroker({ dataDir });
      try {
        const api = apiClient(() => second.httpUrl);
        const peek = await api("POST", "/api/queues/%2f/big-durable/get", { count: 3, ackmode: "ack_requeue_true", encoding: "base64" });
        assert.equal(peek.status, 200);
        const items = peek.json as Array<{ payload: string; payload_bytes: number }>;
        assert.deepEqual(items.map((m) => m.payload_bytes), SIZES.slice(0, 3));
        assert.deepEqual(items.map((m) => Buffer.from(m.payload, "base64")), SIZES.slice(0, 3).map((s, i) => body(s, i)));
        const got = await consumeAll(`${second.amqpUrl}?frameMax=131072`, "big-durable", SIZES.length);
        assert.deepEqual(got, SIZES.map((size, i) => body(size, i)));
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
