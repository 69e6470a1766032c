// PUBLISH_RUN (src/node-link/publish-runs.ts): small forwarded messages that share their queues,
// exchange, routing key and property list travel as one frame. Read back by the leader's reader
// over a real loopback socket, every message arrives whole and in order — runs cut by a change of
// head, by a large body (a PUBLISH), by another frame written between two messages, by the run's
// byte limit and by the writer's slab boundaries. Then two real brokers: A's AMQP publishers
// through a real link to queues B leads, each body checked byte for byte, in order per queue, and
// consumed on A (their DELIVER_OWNs in runs: own-runs.ts); a connecting node that offers neither
// feature gets no runs.
import assert from "node:assert/strict";
import { socketPair } from "./socket-pair.js";
import { describe, it } from "node:test";
import amqp from "amqplib";
import { createMessage, type Message } from "../../src/broker/index.js";
import { FrameSplitter, readFrames } from "../../src/node-link/frame-splitter.js";
import { FRAME_HEAD, PUBLISH, PUBLISH_RUN, PropertiesCache, SETTLE, frame, readMessage } from "../../src/node-link/link-frames.js";
import { LinkWriter } from "../../src/node-link/link-writer.js";
import { PublishRuns, RUN_BODY_MAX, RUN_BYTES_MAX, readPublishRun } from "../../src/node-link/publish-runs.js";
import { FEATURE_DELIVER_OWN, FEATURE_INFO_MANY } from "../../src/node-link/link-handshake.js";
import type { LinkSession } from "../../src/node-link/link-session.js";
import { eventually, withTimeout } from "../helpers/wait.js";
import { linkAToB, queueOnB, useTwoNodes } from "./two-nodes.js";

const bodyBytes = (m: Message): Buffer => (Buffer.isBuffer(m.body) ? m.body : Buffer.concat(m.body as Buffer[]));

/** Message i: mostly a run's (same head for stretches of 40), with sizes around the run's body limit and now and then a head of its own. */
function messageOf(i: number): Message {
  const sizes = [0, 16, 255, 300, RUN_BODY_MAX - 1, RUN_BODY_MAX, 3000];
  const stretch = Math.floor(i / 40);
  // Every fifth stretch: bodies of 1,000 B only, so runs end at the byte limit.
  const body = Buffer.alloc(stretch % 5 === 4 ? 1000 : sizes[i % sizes.length]!, (i * 7) % 251);
  if (body.length >= 4) body.writeUInt32BE(i, 0);
  const routingKey = i % 13 === 0 ? `own.${i}` : `rk.${stretch % 3}`;
  const properties = stretch % 2 === 0 ? { contentType: "text/plain", headers: { stretch } } : { messageId: "ü-id" };
  return createMessage(stretch % 4 === 3 ? "ex-ü" : "", routingKey, properties, null, body, 1_700_000_000_000 + i);
}

describe("PUBLISH_RUN frames", () => {
  it("carry every message whole and in order, runs cut by heads, large bodies, other frames, the byte limit and slabs", async () => {
    const pair = await socketPair();
    try {
      const count = 3000;
      const got: Array<{ ids: number[]; m: Message }> = [];
      let runs = 0;
      let settles = 0;
      const cache = new PropertiesCache();
      const done = new Promise<void>((resolve, reject) => {
        readFrames(
          pair.inn,
          new FrameSplitter(1 << 20),
          (f) => {
            const ids = Array.from({ length: f[FRAME_HEAD]! }, (_, k) => f.readUInt32LE(FRAME_HEAD + 1 + 4 * k));
            if (f[4] === SETTLE) settles++;
            else if (f[4] === PUBLISH) got.push({ ids, m: readMessage(f, FRAME_HEAD + 1 + 4 * ids.length, cache) });
            else {
              assert.equal(f[4], PUBLISH_RUN);
              assert.ok(f.length <= RUN_BYTES_MAX, `a run stays within ${RUN_BYTES_MAX} bytes (${f.length})`);
              runs++;
              readPublishRun(f, cache, null, (m) => got.push({ ids, m }));
            }
            if (got.length === count) resolve();
          },
          undefined,
          reject,
        );
      });
      const w = new LinkWriter(pair.out);
      const publishes = new PublishRuns(true);
      const settle = frame(SETTLE, 9);
      for (let i = 0; i < count; i++) {
        const m = messageOf(i);
        publishes.write(w, m, i % 17 === 0 ? [1, 2] : [1]);
        // Another frame between two messages of one turn ends the run (the writer's mark moved).
        if (i % 29 === 0) w.write(settle);
        if (i % 250 === 0) {
          publishes.seal();
          await new Promise((r) => setImmediate(r));
        }
      }
      publishes.seal();
      await withTimeout(done, 15_000, "every message read back");
      assert.ok(runs > 0 && runs < count / 2, `messages shared runs (${runs} runs)`);
      assert.equal(settles, Math.ceil(count / 29));
      for (let i = 0; i < count; i++) {
        const want = messageOf(i);
        const { ids, m } = got[i]!;
        assert.deepEqual(ids, i % 17 === 0 ? [1, 2] : [1], `message ${i}'s queues`);
        assert.equal(m.exchange, want.exchange);
        assert.equal(m.routingKey, want.routingKey, `message ${i}'s routing key`);
        assert.deepEqual(m.properties, want.properties);
        assert.equal(m.publishedAt, want.publishedAt);
        assert.ok(bodyBytes(m).equals(bodyBytes(want)), `message ${i}'s body (${want.bodySize} bytes)`);
      }
    } finally {
      pair.close();
    }
  });

  it("a run whose message runs past the frame's end is refused", () => {
    const f = Buffer.alloc(FRAME_HEAD + 1 + 4 + 2 + 2 + 4 + 12 + 3);
    f.writeUInt32LE(f.length - 4, 0);
    f[4] = PUBLISH_RUN;
    f[FRAME_HEAD] = 1;
    f.writeUInt32LE(1, FRAME_HEAD + 1);
    // exchange "", routing key "", no properties, then one message claiming 10 bytes of body where 3 follow.
    f.writeUInt32LE(10, FRAME_HEAD + 1 + 4 + 2 + 2 + 4);
    const seen: Message[] = [];
    assert.throws(() => readPublishRun(f, new PropertiesCache(), null, (m) => seen.push(m)), /past the frame's end/);
    assert.equal(seen.length, 0);
  });
});

describe("PUBLISH_RUN between two brokers", () => {
  const fx = useTwoNodes();
  /** B's n-th link session (B registers it as it answers READY: waited for, not assumed). */
  const sessionOf = async (n: number): Promise<LinkSession> => {
    await eventually(() => fx.sessions.length >= n, 5000, `B's link session ${n}`);
    return fx.sessions[n - 1]!;
  };

  /** Publishes `count` messages from A (bodies of 0 B to 5 KB, two property sets) to `queue` and consumes them on `consumeOn`, checked in order. */
  async function roundTrip(conn: amqp.ChannelModel, consumeConn: amqp.ChannelModel, queue: string, count: number): Promise<void> {
    const body = (i: number): Buffer => {
      const b = Buffer.alloc([0, 16, 200, 600, 5000][i % 5]!, i % 251);
      if (b.length >= 4) b.writeUInt32BE(i, 0);
      return b;
    };
    const sub = await consumeConn.createChannel();
    await sub.prefetch(300);
    let next = 0;
    let failure: Error | null = null;
    await sub.consume(queue, (m) => {
      try {
        assert.ok(m !== null);
        const i = Number(m.properties.messageId);
        assert.equal(i, next, `${queue}: in order`);
        assert.ok(m.content.equals(body(i)), `${queue}: body of message ${i} intact`);
        assert.equal(m.properties.contentType, Math.floor(i / 50) % 2 === 0 ? "text/plain" : undefined);
        next++;
        sub.ack(m);
      } catch (err) {
        failure ??= err as Error;
      }
    });
    const pub = await conn.createConfirmChannel();
    for (let sent = 0; sent < count; ) {
      const end = Math.min(count, sent + 250);
      for (; sent < end; sent++) {
        const props = Math.floor(sent / 50) % 2 === 0 ? { contentType: "text/plain" } : {};
        pub.publish("", queue, body(sent), { ...props, messageId: String(sent) });
      }
      await pub.waitForConfirms();
    }
    await eventually(() => failure !== null || next === count, 30_000, `${queue}: every message consumed`);
    assert.equal(failure, null);
    await sub.close();
    await pub.close();
  }

  it("A's publishes reach B's queues whole and in order, most small ones in runs", async () => {
    const link = await linkAToB(fx);
    const { onB } = queueOnB(fx, link, "runs-1");
    const session = await sessionOf(1);
    const connA = await amqp.connect(fx.a.amqpUrl);
    const connB = await amqp.connect(fx.b.amqpUrl);
    connA.on("error", () => {});
    connB.on("error", () => {});
    try {
      await roundTrip(connA, connB, "runs-1", 2000);
      const ownBefore = link.deliveredOwn;
      await roundTrip(connA, connA, "runs-1", 1000);
      // Consumed on A: B delivers A's own messages back by position, a run's in runs (own-runs.ts).
      assert.ok(link.deliveredOwn - ownBefore > 500, `A's consumer got its own messages by position (${link.deliveredOwn - ownBefore})`);
      assert.ok(session.own.opened > 0 && session.own.opened < (link.deliveredOwn - ownBefore) / 2, `DELIVER_OWNs went in runs (${session.own.opened} runs)`);
      // Four in five bodies are small; a confirm window of 250 gives many per turn.
      assert.ok(session.publishedInRuns > 1000, `small messages went in runs (${session.publishedInRuns} of 3,000)`);
      assert.ok(session.publishedInRuns <= 2400, "5 KB bodies never do");
      await eventually(() => onB.messageCount + onB.unacked === 0, 5000, "every ack settled on B");
    } finally {
      await connA.close().catch(() => {});
      await connB.close().catch(() => {});
      link.close();
    }
  });

  it("a connecting node that does not offer them gets no runs either way", async () => {
    const link = await linkAToB(fx, fx.secret, undefined, FEATURE_DELIVER_OWN | FEATURE_INFO_MANY);
    queueOnB(fx, link, "runs-old");
    const session = await sessionOf(2);
    const connA = await amqp.connect(fx.a.amqpUrl);
    connA.on("error", () => {});
    try {
      await roundTrip(connA, connA, "runs-old", 1000);
      assert.equal(session.publishedInRuns, 0);
      assert.ok(link.deliveredOwn > 0, "DELIVER_OWN still used");
      assert.equal(session.own.opened, 0, "no DELIVER_OWN_RUN to a node that did not offer it");
    } finally {
      await connA.close().catch(() => {});
      link.close();
    }
  });
});
