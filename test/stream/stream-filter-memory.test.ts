// Stream filtering on a broker that stores nothing (--in-memory, coney/testing): the stream keeps
// messages, not chunks, so instead of chunk filters a filtering consumer is sent exactly the
// messages its filter wants (memory-stream-log.ts). The consumers accept everything they are
// sent, and the last message published is one they want, so anything unwanted would show first.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Offset } from "rabbitmq-stream-js-client";
import type { Message } from "rabbitmq-stream-js-client/dist/publisher.js";
import { useStreamAndAmqp } from "./stream-helpers.js";
import { eventually } from "../helpers/wait.js";

/** Message i's region: A, B, or none; the last one (i = 30) is A. */
const regionOf = (i: number): string | undefined => (i % 3 === 0 ? "A" : i % 3 === 1 ? "B" : undefined);
const COUNT = 31;

describe("stream filtering in memory", { timeout: 30_000 }, () => {
  const s = useStreamAndAmqp({ inMemory: true });

  it("keeps a stream published over AMQP 0-9-1 and natively", async () => {
    await s.ch.assertQueue("mem-regions", { durable: true, arguments: { "x-queue-type": "stream" } });
    // Even messages over AMQP 0-9-1 (x-stream-filter-value), odd ones natively (Publish v2).
    const publisher = await s.client.declarePublisher({ stream: "mem-regions" }, (m) => m.applicationProperties?.["region"] as string | undefined);
    for (let i = 0; i < COUNT; i++) {
      const region = regionOf(i);
      const body = Buffer.from(`${region ?? "-"}:${i}`);
      if (i % 2 === 0) {
        s.ch.sendToQueue("mem-regions", body, region === undefined ? {} : { headers: { "x-stream-filter-value": region } });
        await s.ch.waitForConfirms();
      } else {
        await publisher.send(body, region === undefined ? {} : { applicationProperties: { region } });
        await publisher.flush();
      }
      // One at a time, so offsets follow i whichever way each came.
      await eventually(async () => (await s.ch.checkQueue("mem-regions")).messageCount === i + 1, 5000, `message ${i} stored`);
    }
    await publisher.close();
  });

  const wanted = (values: string[], matchUnfiltered: boolean): string[] =>
    Array.from({ length: COUNT }, (_, i) => i)
      .filter((i) => {
        const r = regionOf(i);
        return r === undefined ? matchUnfiltered : values.includes(r);
      })
      .map((i) => `${regionOf(i) ?? "-"}:${i}`);

  for (const [values, matchUnfiltered] of [[["A"], false], [["A"], true], [["A", "B"], false]] as const) {
    const label = `${values.join("+")}${matchUnfiltered ? " and unfiltered" : ""}`;

    it(`sends an AMQP 0-9-1 consumer filtering on ${label} exactly those messages`, async () => {
      const want = wanted([...values], matchUnfiltered);
      const ch = await s.conn.createChannel();
      await ch.prefetch(100);
      const got: string[] = [];
      await ch.consume("mem-regions", (m) => {
        got.push(m!.content.toString());
        ch.ack(m!);
      }, { arguments: { "x-stream-offset": "first", "x-stream-filter": [...values], "x-stream-match-unfiltered": matchUnfiltered } });
      await eventually(() => got.length >= want.length, 5000, `${want.length} messages`);
      await ch.close();
      assert.deepEqual(got, want);
    });

    it(`sends a native consumer filtering on ${label} exactly those messages`, async () => {
      const want = wanted([...values], matchUnfiltered);
      const got: string[] = [];
      const consumer = await s.client.declareConsumer(
        { stream: "mem-regions", offset: Offset.first(), filter: { values: [...values], matchUnfiltered, postFilterFunc: (_m: Message) => true } },
        (m) => void got.push(m.content.toString()),
      );
      await eventually(() => got.length >= want.length, 5000, `${want.length} messages`);
      await s.client.closeConsumer(consumer.extendedId);
      assert.deepEqual(got, want);
    });
  }

  it("sends every message to a consumer without a filter", async () => {
    const got: string[] = [];
    const consumer = await s.client.declareConsumer({ stream: "mem-regions", offset: Offset.first() }, (m) => void got.push(m.content.toString()));
    await eventually(() => got.length >= COUNT, 5000, `${COUNT} messages`);
    await s.client.closeConsumer(consumer.extendedId);
    assert.equal(got.length, COUNT);
  });
});
