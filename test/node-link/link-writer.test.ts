// The link's output built in place (link-writer.ts's slab, link-frames.ts's putMessageHead) read
// back by the link's own reader (FrameSplitter, readMessage) over a real loopback socket: every
// message's exchange, routing key, properties and body arrive as written, in order — across slab
// boundaries, with small bodies copied and large or multi-part ones referenced, ASCII and
// non-ASCII strings, long and short ones.
import assert from "node:assert/strict";
import { socketPair } from "./socket-pair.js";
import { describe, it } from "node:test";
import { createMessage, type Message } from "../../src/broker/index.js";
import { FrameSplitter, readFrames } from "../../src/node-link/frame-splitter.js";
import { FRAME_HEAD, PUBLISH, PropertiesCache, putMessageHead, readMessage } from "../../src/node-link/link-frames.js";
import { LinkWriter } from "../../src/node-link/link-writer.js";
import type { Body } from "../../src/broker/values/message-body.js";
import { withTimeout } from "../helpers/wait.js";

const bodyText = (b: Body): string => (Buffer.isBuffer(b) ? b : Buffer.concat(b as Buffer[])).toString("latin1");

/** Message i: its body's size cycles through small, just-below and above the copy threshold, and parts. */
function messageOf(i: number): Message {
  const fill = (n: number): Buffer => Buffer.alloc(n, String.fromCharCode(97 + (i % 26)));
  const kind = i % 5;
  const body: Body = kind === 0 ? fill(16) : kind === 1 ? fill(1023) : kind === 2 ? fill(3000) : kind === 3 ? [fill(700), fill(900)] : Buffer.alloc(0);
  const routingKey = i % 7 === 0 ? `ключ-${i}` : i % 11 === 0 ? `long.${"r".repeat(80)}.${i}` : `rk.${i}`;
  const properties = i % 3 === 0 ? { contentType: "text/plain", headers: { i } } : { messageId: `id-${i % 4}` };
  return createMessage(i % 2 === 0 ? "" : "ex-ü", routingKey, properties, null, body, 1_700_000_000_000 + i);
}

describe("LinkWriter and message frames", () => {
  it("carries every message intact across turns and slab boundaries", async () => {
    const pair = await socketPair();
    try {
      const count = 600; // about 750 KB: many 64 KiB slabs, several turns
      const got: Message[] = [];
      const ids: number[] = [];
      const cache = new PropertiesCache();
      const all = new Promise<void>((resolve) => {
        readFrames(pair.inn, new FrameSplitter(1 << 20), (f) => {
          assert.equal(f[4], PUBLISH);
          ids.push(f.readUInt32LE(FRAME_HEAD));
          got.push(readMessage(f, FRAME_HEAD + 4, cache));
          if (got.length === count) resolve();
        });
      });
      const w = new LinkWriter(pair.out);
      for (let i = 0; i < count; i++) {
        const m = messageOf(i);
        const at = putMessageHead(w, PUBLISH, 4, m);
        w.slab.writeUInt32LE(i, at);
        w.writeBody(m.body);
        // A new turn now and then: the slab goes on filling where the last write left it.
        if (i % 150 === 149) await new Promise((r) => setImmediate(r));
      }
      await withTimeout(all, 10_000, "every frame read back");
      for (let i = 0; i < count; i++) {
        const want = messageOf(i);
        const m = got[i]!;
        assert.equal(ids[i], i, "in order");
        assert.equal(m.exchange, want.exchange);
        assert.equal(m.routingKey, want.routingKey);
        assert.equal(m.publishedAt, want.publishedAt);
        assert.deepEqual(m.properties, want.properties);
        assert.equal(m.bodySize, want.bodySize);
        assert.equal(bodyText(m.body), bodyText(want.body), `body of message ${i}`);
      }
    } finally {
      pair.close();
    }
  });

  it("shares one copy of a repeated property list and decodes a changed one", async () => {
    const pair = await socketPair();
    try {
      const cache = new PropertiesCache();
      const got: Message[] = [];
      const three = new Promise<void>((resolve) => {
        readFrames(pair.inn, new FrameSplitter(1 << 20), (f) => {
          got.push(readMessage(f, FRAME_HEAD, cache));
          if (got.length === 3) resolve();
        });
      });
      const w = new LinkWriter(pair.out);
      for (const [type, body] of [["a", "x"], ["a", "y"], ["b", "z"]] as const) {
        const m = createMessage("", "q", { contentType: type }, null, Buffer.from(body), 1);
        putMessageHead(w, PUBLISH, 0, m);
        w.writeBody(m.body);
      }
      await withTimeout(three, 5000, "three frames");
      const [a, b, c] = got as [Message, Message, Message];
      assert.equal(a.properties, b.properties, "decoded once");
      assert.equal(a.rawProperties, b.rawProperties, "one copy of the bytes");
      assert.equal(c.properties.contentType, "b");
      assert.notEqual(c.rawProperties, a.rawProperties);
      assert.equal(a.properties.contentType, "a", "the earlier message keeps its properties");
      assert.deepEqual([a, b, c].map((m) => bodyText(m.body)), ["x", "y", "z"]);
    } finally {
      pair.close();
    }
  });
});
