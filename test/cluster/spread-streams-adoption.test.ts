// A spread cluster (`--cluster-mode spread`, lease 3 s): a stream's home killed -9. Its store —
// the stream's segments and its consumers' stored offsets with it — is replicated to the other
// nodes; an in-sync follower adopts it (docs/CLUSTERING.md, "Stage 2") and serves the stream with
// every confirmed message at its offset, over AMQP 0-9-1 through any node, and over the stream
// protocol at the adopted broker's own stream port, which Metadata on every node names as the
// leader (as RabbitMQ names a stream's new leader). Three real nodes on a real etcd; amqplib and
// rabbitmq-stream-js-client. Restarted, the home takes its store back and serves the stream at its
// own stream port again, with every message confirmed meanwhile.
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { ConsumeMessage } from "amqplib";
import { connect as connectStream, Offset, type Client } from "rabbitmq-stream-js-client";
import { spreadCluster } from "./spread-fixture.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";
import { endKilledClient, silentStreamLog } from "../stream/killed-stream-client.js";

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);
const STREAM = "spa-stream";

describe("a spread cluster: a stream's home killed -9, its stream served by the adopter", () => {
  const sc = spreadCluster({ streams: true, leaseTtl: 3 });

  const streamClient = async (i: number): Promise<Client> => {
    const c = await connectStream({ hostname: "127.0.0.1", port: await sc.streamPort(i), username: "guest", password: "guest", vhost: "/", heartbeat: 0 }, silentStreamLog);
    sc.onClose(async () => {
      await withTimeout(c.close(), 1000, "a stream client's close").catch(() => endKilledClient(c));
    });
    return c;
  };

  /** Reads `n` messages of the stream from `offset` through node `via` over AMQP 0-9-1. */
  const readVia = async (via: number, offset: number | string, n: number): Promise<Array<[string, number]>> => {
    const ch = await (await sc.connect(via)).createChannel();
    ch.on("error", () => {});
    await ch.prefetch(100);
    const got: ConsumeMessage[] = [];
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        ch.consume(STREAM, (m) => {
          if (m === null) return reject(new Error("cancelled"));
          got.push(m);
          ch.ack(m);
          if (got.length >= n) resolve();
        }, { arguments: { "x-stream-offset": offset } }).catch(reject);
      }),
      5000,
      `${n} messages through node${via}`,
    );
    await ch.close().catch(() => {});
    return got.slice(0, n).map((m) => [m.content.toString(), Number(m.properties.headers!["x-stream-offset"])]);
  };

  sc.it("keeps every confirmed message at its offset and the stored consumer offsets; the adopter serves it over AMQP 0-9-1 and the stream protocol", async () => {
    const ch = await (await sc.connect(0)).createConfirmChannel();
    await ch.assertQueue(STREAM, { durable: true, arguments: { "x-queue-type": "stream" } });
    // Confirms wait for the in-sync followers once they are listed: wait until both hold node0's store.
    await eventually(async () => ((await sc.api(0, "GET", `/api/queues/%2F/${STREAM}`)).json as { members?: string[] }).members?.length === 3, 15_000, "node0's store in sync on all three");
    const pub = await (await sc.connect(1)).createConfirmChannel();
    for (let i = 0; i < 50; i++) pub.sendToQueue(STREAM, Buffer.from(`a${i}`), { persistent: true });
    await withTimeout(pub.waitForConfirms(), 10_000, "50 confirms through node1");
    const before = await streamClient(2);
    const publisher = await before.declarePublisher({ stream: STREAM, publisherRef: "spa-pub" });
    const confirmed = collector<bigint>(20);
    publisher.on("publish_confirm", (_err, ids) => ids.forEach((id) => confirmed.push(id)));
    for (let i = 0; i < 20; i++) await publisher.send(Buffer.from(`n${i}`), { publishingId: BigInt(i + 1) });
    await publisher.flush();
    await withTimeout(confirmed.done, 10_000, "20 native confirms");
    const tracking = await before.declareConsumer({ stream: STREAM, offset: Offset.first(), consumerRef: "spa-ref" }, () => {});
    await tracking.storeOffset(42n);
    await eventually(async () => (await before.queryOffset({ reference: "spa-ref", stream: STREAM }).catch(() => -1n)) === 42n, 10_000, "the stored offset");
    const homePort = await sc.streamPort(0);

    const killedAt = performance.now();
    await sc.cluster.kill(sc.node(0));
    endKilledClient(before);

    // Metadata on node2 names the adopter's stream listener once the store is adopted.
    const after = await streamClient(2);
    let leader: { host?: string; port?: number } = {};
    await eventually(async () => {
      const [meta] = await after.queryMetadata({ streams: [STREAM] }).catch(() => [undefined]);
      leader = { host: meta?.leader?.host, port: meta?.leader?.port };
      return leader.port !== undefined && leader.port !== 0 && leader.port !== homePort;
    }, 20_000, "Metadata naming the adopted stream's listener");
    const adoptedMs = Math.round(performance.now() - killedAt);
    assert.equal(leader.host, "127.0.0.1");
    const adopter = ((await sc.api(1, "GET", "/api/nodes")).json as Array<{ name: string; adopted_by?: string }>).find((n) => n.name === sc.node(0).name)?.adopted_by;
    assert.ok(adopter === sc.node(1).name || adopter === sc.node(2).name, `node0's store adopted by a survivor (${String(adopter)})`);

    const all = [...range(0, 50).map((i): [string, number] => [`a${i}`, i]), ...range(0, 20).map((i): [string, number] => [`n${i}`, 50 + i])];
    // Every confirmed message, in order, at its offset: over AMQP 0-9-1 through both survivors.
    for (const via of [1, 2]) {
      let got: Array<[string, number]> = [];
      await eventually(async () => {
        got = await readVia(via, "first", 70).catch(() => []);
        return got.length === 70;
      }, 15_000, `the adopted stream read through node${via}`);
      assert.deepEqual(got, all, `through node${via}`);
    }
    // Over the stream protocol at the adopted listener: every offset, the stored offset, new confirmed publishes.
    const first = collector<[number, string]>(70);
    const reader = await after.declareConsumer({ stream: STREAM, offset: Offset.first() }, (m) => first.push([Number(m.offset!), m.content.toString()]));
    assert.deepEqual((await withTimeout(first.done, 10_000, "70 from the first offset")).map(([o, b]) => [b, o]), all);
    assert.equal(await after.queryOffset({ reference: "spa-ref", stream: STREAM }), 42n, "the stored offset kept");
    const again = await after.declarePublisher({ stream: STREAM, publisherRef: "spa-pub" });
    assert.equal(await again.getLastPublishingId(), 20n, "the publisher's last id kept");
    const more = collector<bigint>(5);
    again.on("publish_confirm", (_err, ids) => ids.forEach((id) => more.push(id)));
    for (let i = 0; i < 5; i++) await again.send(Buffer.from(`z${i}`), { publishingId: BigInt(21 + i) });
    await again.flush();
    await withTimeout(more.done, 10_000, "5 confirms from the adopter");
    assert.deepEqual(await readVia(1, 70, 5), range(0, 5).map((i) => [`z${i}`, 70 + i]), "the adopter's new messages through node1");

    // node0 restarted: it follows its adopter back, takes its store back and serves the stream at its own new stream port.
    // Nothing stays connected to the adopted listener, which closes at the hand-back (the client would reconnect on its own).
    await withTimeout(Promise.all([again.close(), reader.close()]), 5000, "the adopter's publisher and reader closed");
    const logFrom = sc.node(0).log.length;
    const restartedAt = performance.now();
    sc.cluster.startNode(sc.node(0));
    await eventually(() => sc.node(0).log.slice(logFrom).includes('"msg":"Coney started"'), 30_000, "node0 started again");
    const newPort = await sc.streamPort(0);
    await eventually(async () => {
      const [meta] = await after.queryMetadata({ streams: [STREAM] }).catch(() => [undefined]);
      return meta?.leader?.port === newPort;
    }, 20_000, "Metadata naming node0's own stream port again");
    const backMs = Math.round(performance.now() - restartedAt);
    const home = await streamClient(0);
    const whole = collector<string>(75);
    await home.declareConsumer({ stream: STREAM, offset: Offset.first() }, (m) => whole.push(m.content.toString()));
    assert.deepEqual(await withTimeout(whole.done, 10_000, "75 from node0 again"), [...all.map(([b]) => b), ...range(0, 5).map((i) => `z${i}`)], "every confirmed message, the adopter's too");
    console.log(`SPREAD-STREAMS-ADOPTION ${JSON.stringify({ killToMetadataMs: adoptedMs, adopter, restartToHomeMetadataMs: backMs })}`);
  });
});
