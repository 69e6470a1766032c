// The native stream protocol under `coney --workers 2` (preview), with rabbitmq-stream-js-client:
// a client whose connection landed on the worker that does not lead a stream creates it there
// (created on its leader, with its arguments), and its publishers and consumers follow Metadata to
// the leading worker's own stream port, as a RabbitMQ client follows it to the leader's node:
// publishing ids and confirms, every offset specification, credit. A client behind the shared
// port only (an address resolver) reaches the leader too. On the non-leading worker a publisher
// (or a single-active-consumer subscription) on the stream is stream_not_available, as RabbitMQ
// answers on a node without a member; a plain subscription there is served (workers-stream-any.test.ts).
// A leader killed -9 closes its clients; after its restart every confirmed message is there.
// Real process tree, real clients.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect, Offset, type Client } from "rabbitmq-stream-js-client";
import { collector, eventually, withTimeout } from "../helpers/wait.js";
import { startWorkers, workerOf, type WorkersProcess } from "./workers-harness.js";
import { freshGet } from "./worker-landing.js";
import { RawStreamClient } from "../stream/raw-stream-client.js";
import { FrameWriter } from "../../src/stream/wire.js";
import { CMD, OFFSET_TYPE, RC } from "../../src/stream/protocol.js";
import { queueGroupOf } from "../../src/broker/index.js";
import { endKilledClient, silentStreamLog } from "../stream/killed-stream-client.js";

function ledBy(w: number, prefix: string): string {
  for (let i = 0; ; i++) if (queueGroupOf("/", `${prefix}-${i}`, 2) === w) return `${prefix}-${i}`;
}

describe("the native stream protocol across the workers of coney --workers 2", () => {
  let p: WorkersProcess;
  let sharedPort = 0;
  /** Each worker's own stream port, by index. */
  let own: number[] = [];
  const clients: Client[] = [];

  const client = async (port = sharedPort, extra: Record<string, unknown> = {}): Promise<Client> => {
    const c = await connect({ hostname: "127.0.0.1", port, username: "guest", password: "guest", vhost: "/", heartbeat: 0, ...extra }, silentStreamLog);
    clients.push(c);
    return c;
  };
  /** A client whose locator connection landed on worker `w` of the shared port (Open advertises the worker's own port). */
  const clientOn = async (w: number): Promise<Client> => {
    for (let i = 0; i < 20; i++) {
      const c = await client();
      if (c.getConnectionInfo().port === own[w]) return c;
    }
    throw new Error(`no stream connection landed on w${w}`);
  };

  before(async () => {
    p = await startWorkers(["--stream-advertised-host", "127.0.0.1"]);
    const started = p.lines.find((l) => l.msg === "Coney started")!;
    sharedPort = started["stream_port"] as number;
    own = started["stream_worker_ports"] as number[];
    assert.equal(own.length, 2);
    assert.ok(own.every((x) => x > 0 && x !== sharedPort), "each worker has its own stream port");
  });
  after(async () => {
    await Promise.all(clients.map((c) => withTimeout(c.close(), 2000, "a stream client's close").catch(() => {})));
    // Clients that had a connection to the killed worker do not finish their close (endKilledClient).
    for (const c of clients) endKilledClient(c);
    await p.close();
  });

  for (const leader of [0, 1]) {
    it(`creates a stream led by w${leader} from w${1 - leader}, publishes with confirms and reads every offset through the leader's port`, async () => {
      const s = ledBy(leader, `native-w${leader}`);
      const c = await clientOn(1 - leader);
      await c.createStream({ stream: s, arguments: { "max-length-bytes": 20_000_000, "max-age": "7D", "stream-max-segment-size-bytes": 2_000_000 } });
      // Created on its leader, with its arguments; both workers say so.
      for (let i = 0; i < 4; i++) {
        const r = (await freshGet(p.httpPort, `/api/queues/%2F/${s}`)) as { node?: string; type?: string; arguments?: Record<string, unknown> };
        assert.equal(r.type, "stream");
        assert.equal(workerOf(r.node ?? ""), `w${leader}`);
        assert.equal(r.arguments?.["x-max-length-bytes"], 20_000_000);
        assert.equal(r.arguments?.["x-max-age"], "7D");
        assert.equal(r.arguments?.["x-stream-max-segment-size-bytes"], 2_000_000);
      }
      const [meta] = await c.queryMetadata({ streams: [s] });
      assert.deepEqual({ host: meta!.leader?.host, port: meta!.leader?.port }, { host: "127.0.0.1", port: own[leader] }, "Metadata names the leading worker's own port");

      const publisher = await c.declarePublisher({ stream: s, publisherRef: `pub-${s}` });
      const confirmed = collector<bigint>(20);
      publisher.on("publish_confirm", (err, ids) => {
        assert.equal(err, null);
        for (const id of ids) confirmed.push(id);
      });
      for (let i = 0; i < 20; i++) await publisher.send(Buffer.from(`n${i}`), { publishingId: BigInt(i + 1) });
      await publisher.flush();
      assert.deepEqual([...(await withTimeout(confirmed.done, 10_000, "20 confirms"))].sort((a, b) => Number(a - b)), Array.from({ length: 20 }, (_, i) => BigInt(i + 1)));
      assert.equal(await publisher.getLastPublishingId(), 20n, "the leader keeps the publisher's last id");

      const first = collector<[bigint, string]>(20);
      await c.declareConsumer({ stream: s, offset: Offset.first() }, (m) => first.push([m.offset!, m.content.toString()]));
      const got = await withTimeout(first.done, 10_000, "20 from first");
      assert.deepEqual(got.map(([o]) => o), Array.from({ length: 20 }, (_, i) => BigInt(i)));
      assert.deepEqual(got.map(([, b]) => b), Array.from({ length: 20 }, (_, i) => `n${i}`));
      const fromOffset = collector<bigint>(5);
      await c.declareConsumer({ stream: s, offset: Offset.offset(15n) }, (m) => fromOffset.push(m.offset!));
      assert.deepEqual(await withTimeout(fromOffset.done, 10_000, "15.."), [15n, 16n, 17n, 18n, 19n]);
      const fromNext = collector<string>(1);
      await c.declareConsumer({ stream: s, offset: Offset.next() }, (m) => fromNext.push(m.content.toString()));
      const fromTimestamp = collector<string>(21);
      await c.declareConsumer({ stream: s, offset: Offset.timestamp(new Date(Date.now() - 60_000)) }, (m) => fromTimestamp.push(m.content.toString()));
      await publisher.send(Buffer.from("later"), { publishingId: 21n });
      await publisher.flush();
      assert.deepEqual(await withTimeout(fromNext.done, 10_000, "next"), ["later"]);
      assert.equal((await withTimeout(fromTimestamp.done, 10_000, "a minute back")).at(-1), "later");
      await eventually(async () => ((await freshGet(p.httpPort, `/api/queues/%2F/${s}`)) as { messages?: number }).messages === 21, 10_000, `${s} counting 21 in /api/queues`);
      // The locator connection (on the non-leading worker) asks the leader: stats, tracked offsets.
      const stats = await c.streamStatsRequest(s);
      assert.equal(stats.firstChunkId, 0n);
      assert.ok(stats.committedChunkId >= 0n && stats.committedChunkId <= 20n);
      const tracking = await c.declareConsumer({ stream: s, offset: Offset.first(), consumerRef: `ref-${s}` }, () => {});
      await tracking.storeOffset(12n);
      await eventually(async () => (await c.queryOffset({ reference: `ref-${s}`, stream: s }).catch(() => -1n)) === 12n, 10_000, "the stored offset read through the non-leading worker");
      await assert.rejects(c.queryOffset({ reference: "never-stored", stream: s }), /code 19|No offset/i);
    });
  }

  it("a publisher and a single-active-consumer subscription on the non-leading worker's connection are served; delete from there deletes it on its leader", async () => {
    const s = ledBy(0, "native-refused");
    const c = await clientOn(1);
    await c.createStream({ stream: s });
    // The non-leading worker's own port, with no metadata to follow.
    const direct = await RawStreamClient.login(own[1]!);
    const publish = await direct.request((corr) => new FrameWriter(CMD.declarePublisher).u32(corr).u8(1).str("").str(s).frame(), CMD.declarePublisher);
    assert.equal(publish.code, RC.ok, "declare_publisher on the non-leading worker goes to the leader (workers-stream-publish-any.test.ts)");
    // A subscription there is served from the leader's log (workers-stream-any.test.ts), a single-active-consumer one in the leader's group (workers-stream-publish-any.test.ts).
    const subscribe = await direct.request((corr) => new FrameWriter(CMD.subscribe).u32(corr).u8(1).str(s).u16(OFFSET_TYPE.first).u16(10).map([["single-active-consumer", "true"], ["name", "g"]]).frame(), CMD.subscribe);
    assert.equal(subscribe.code, RC.ok, "a single-active-consumer subscribe on the non-leading worker");
    direct.close();
    await c.deleteStream({ stream: s });
    for (let i = 0; i < 2; i++) {
      const r = (await freshGet(p.httpPort, `/api/queues/%2F/${s}`)) as { error?: string };
      assert.equal(r.error, "Object Not Found", "gone on both workers");
    }
  });

  it("Delete is answered once the other worker forgot the stream: a Create there right after is no stream_already_exists", async () => {
    const s = ledBy(0, "native-recreated");
    const onLeader = await RawStreamClient.login(own[0]!);
    const onOther = await RawStreamClient.login(own[1]!);
    const create = (c: RawStreamClient): Promise<{ code: number }> => c.request((corr) => new FrameWriter(CMD.create).u32(corr).str(s).map([]).frame(), CMD.create);
    const remove = (c: RawStreamClient): Promise<{ code: number }> => c.request((corr) => new FrameWriter(CMD.delete).u32(corr).str(s).frame(), CMD.delete);
    try {
      // Both ways: deleted where it leads (the other worker follows), and from the other worker (deleted on its leader).
      for (let round = 0; round < 10; round++) {
        assert.equal((await create(onLeader)).code, RC.ok, `round ${round}: created on its leader`);
        assert.equal((await remove(onLeader)).code, RC.ok, `round ${round}: deleted on its leader`);
        assert.equal((await create(onOther)).code, RC.ok, `round ${round}: created again through the other worker, right after the delete's answer`);
        assert.equal((await remove(onOther)).code, RC.ok, `round ${round}: deleted through the other worker`);
      }
    } finally {
      onLeader.close();
      onOther.close();
    }
  });

  it("a client that reaches the broker only through the shared port (address resolver) lands on the leader", async () => {
    const s = ledBy(1, "native-resolver");
    const c = await client(sharedPort, { addressResolver: { enabled: true, endpoint: { host: "127.0.0.1", port: sharedPort } } });
    await c.createStream({ stream: s });
    const publisher = await c.declarePublisher({ stream: s });
    const confirmed = collector<bigint>(5);
    publisher.on("publish_confirm", (_err, ids) => ids.forEach((id) => confirmed.push(id)));
    for (let i = 0; i < 5; i++) await publisher.send(Buffer.from(`r${i}`));
    await publisher.flush();
    await withTimeout(confirmed.done, 10_000, "5 confirms through the shared port");
    const got = collector<string>(5);
    await c.declareConsumer({ stream: s, offset: Offset.first() }, (m) => got.push(m.content.toString()));
    assert.deepEqual(await withTimeout(got.done, 10_000, "5 through the shared port"), ["r0", "r1", "r2", "r3", "r4"]);
  });

  it("the leader killed -9 closes its stream clients; after its restart every confirmed message is there", async () => {
    const s = ledBy(1, "native-kill");
    const c = await clientOn(0);
    await c.createStream({ stream: s });
    const publisher = await c.declarePublisher({ stream: s });
    const confirmed = collector<bigint>(30);
    publisher.on("publish_confirm", (_err, ids) => ids.forEach((id) => confirmed.push(id)));
    for (let i = 0; i < 30; i++) await publisher.send(Buffer.from(`k${i}`));
    await publisher.flush();
    await withTimeout(confirmed.done, 10_000, "30 confirms");
    let closed!: () => void;
    const wasClosed = new Promise<void>((r) => (closed = r));
    const seen = collector<string>(30);
    await c.declareConsumer({ stream: s, offset: Offset.first(), connectionClosedListener: () => closed() }, (m) => seen.push(m.content.toString()));
    await withTimeout(seen.done, 10_000, "30 before the kill");
    const nodes = (await p.api("GET", "/api/nodes")).json as Array<{ name: string; os_pid: string }>;
    process.kill(Number(nodes.find((n) => workerOf(n.name) === "w1")!.os_pid), "SIGKILL");
    await withTimeout(wasClosed, 10_000, "the consumer's connection closed with its worker");
    // Once the leader serves again, a new client reads all 30 from it.
    let back: string[] = [];
    let lastError: unknown = null;
    await eventually(async () => {
      try {
        back = await withTimeout((async () => {
          const again = await client();
          const all = collector<string>(30);
          await again.declareConsumer({ stream: s, offset: Offset.first() }, (m) => all.push(m.content.toString()));
          return all.done;
        })(), 5000, "a client reading 30 after the restart");
        return true;
      } catch (err) {
        lastError = err;
        return false;
      }
    }, 30_000, "the stream served again after its leader's restart").catch((err: Error) => {
      throw new Error(`${err.message}; last: ${String(lastError)}`);
    });
    assert.deepEqual(back, Array.from({ length: 30 }, (_, i) => `k${i}`));

  });
});
