// Single active consumer with rabbitmq-stream-js-client: of two consumers with the same reference
// on one stream only the first receives; when it goes, the second is activated (ConsumerUpdate)
// and goes on from the offset it answers with. A super stream consumer (which subscribes to each
// partition as a single active consumer) receives every partition's messages.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Offset } from "rabbitmq-stream-js-client";
import { collector, eventually, withTimeout } from "../helpers/wait.js";
import { FrameWriter } from "../../src/stream/wire.js";
import { RawStreamClient } from "./raw-stream-client.js";
import { useStreamBroker } from "./stream-helpers.js";

describe("single active consumer", () => {
  const s = useStreamBroker();

  it("delivers to one member of a group at a time and hands over when it leaves", async () => {
    await s.client.createStream({ stream: "sac" });
    const publisher = await s.client.declarePublisher({ stream: "sac" });
    const first: string[] = [];
    const second: string[] = [];
    const c1 = await s.client.declareConsumer({ stream: "sac", offset: Offset.first(), singleActive: true, consumerRef: "billing" }, (m) => void first.push(m.content.toString()));
    await s.client.declareConsumer({ stream: "sac", offset: Offset.first(), singleActive: true, consumerRef: "billing" }, (m) => void second.push(m.content.toString()));
    for (let i = 0; i < 3; i++) await publisher.send(Buffer.from(`a${i}`));
    await publisher.flush();
    await eventually(() => first.length === 3, 5000, "the active consumer's deliveries");
    assert.deepEqual(first, ["a0", "a1", "a2"]);
    // The inactive member got nothing; a round trip makes sure nothing was on its way.
    await s.client.streamStatsRequest("sac");
    assert.equal(second.length, 0);
    const states = s.b.broker.connections.list().flatMap((x) => x.streamDetails?.().consumers ?? []).filter((s) => s.stream === "sac").map((s) => s.active);
    assert.deepEqual(states.sort(), [false, true]);
    await c1.storeOffset(2n);
    await eventually(async () => (await s.client.queryOffset({ reference: "billing", stream: "sac" }).catch(() => -1n)) === 2n, 5000, "stored offset");
    await s.client.closeConsumer(c1.extendedId);
    await publisher.send(Buffer.from("b0"));
    await publisher.flush();
    // Activated, the second member starts from its own offset (first): it sees everything.
    await eventually(() => second.includes("b0"), 5000, "the second member's deliveries");
    assert.deepEqual(second, ["a0", "a1", "a2", "b0"]);
  });

  it("refuses a single active consumer without a name", async () => {
    await s.client.createStream({ stream: "sac-2" });
    const c = await RawStreamClient.login(s.b.streamPort);
    const sub = (corr: number): Buffer => new FrameWriter(0x07).u32(corr).u8(0).str("sac-2").u16(1).u16(1).map([["single-active-consumer", "true"]]).frame();
    assert.equal((await c.request(sub, 0x07)).code, 0x11);
    c.close();
  });

  it("serves a super stream consumer its partitions' messages", async () => {
    await s.client.createSuperStream({ streamName: "orders" }, ["a", "b"]);
    const got = collector<string>(2);
    await s.client.declareSuperStreamConsumer({ superStream: "orders", consumerRef: "shipping", offset: Offset.first() }, (m) => got.push(m.content.toString()));
    const publisher = await s.client.declareSuperStreamPublisher({ superStream: "orders", routingStrategy: "key" }, (_c, o) => o.applicationProperties?.["k"] as string);
    await publisher.send(Buffer.from("to a"), { applicationProperties: { k: "a" } });
    await publisher.send(Buffer.from("to b"), { applicationProperties: { k: "b" } });
    assert.deepEqual((await withTimeout(got.done, 10_000, "both partitions")).sort(), ["to a", "to b"]);
  });
});
