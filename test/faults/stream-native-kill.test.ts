// The native stream protocol under kill -9: a publisher with a reference publishes with confirms
// into a broker in a child process that is killed with SIGKILL mid-stream; a new broker on the
// same data dir has every confirmed message at its offset (read back natively, whole chunks from
// the files) and answers QueryPublisherSequence with at least the last confirmed publishing id,
// so the publisher can resume without duplicates.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnChildBroker, type ChildBroker } from "./fault-harness.js";
import { eventually } from "../helpers/wait.js";
import { FrameWriter } from "../../src/stream/wire.js";
import { chunkMessages } from "../../src/store/stream/chunk-format.js";
import { RawStreamClient } from "../stream/raw-stream-client.js";

async function streamPortOf(b: ChildBroker): Promise<number> {
  let port = 0;
  await eventually(() => {
    const m = /"msg":"stream protocol listener started","port":(\d+)/.exec(b.log());
    if (m) port = Number(m[1]);
    return m !== null;
  }, 15_000, "the stream listener");
  return port;
}

/** A one-data-section AMQP 1.0 message, and its body back. */
const message = (text: string): Buffer => Buffer.concat([Buffer.from([0x00, 0x53, 0x75, 0xa0, text.length]), Buffer.from(text)]);
const bodyOf = (m: Buffer): string => m.subarray(5).toString();

describe("native stream publishing under kill -9", { timeout: 90_000 }, () => {
  it("keeps every confirmed message and the publisher's sequence after SIGKILL", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-stream-native-kill-"));
    try {
      const broker = await spawnChildBroker({ dataDir, args: ["--stream-port", "0"] });
      const c = await RawStreamClient.login(await streamPortOf(broker));
      assert.equal((await c.request((corr) => new FrameWriter(0x0d).u32(corr).str("nk").map([["stream-max-segment-size-bytes", "64000"]]).frame(), 0x0d)).code, 1);
      assert.equal((await c.request((corr) => new FrameWriter(0x01).u32(corr).u8(0).str("nk-writer").str("nk").frame(), 0x01)).code, 1);
      const confirmed: number[] = [];
      let next = 1;
      const deadline = Date.now() + 30_000;
      // Frames of 50, at most 1,000 unconfirmed; the broker dies once 3,000 are confirmed.
      while (confirmed.length < 3000) {
        if (Date.now() > deadline) throw new Error(`the broker confirmed ${confirmed.length} messages in 30 s`);
        while (next - 1 - confirmed.length < 1000) {
          const w = new FrameWriter(0x02, 1, 4096).u8(0).i32(50);
          for (let i = 0; i < 50; i++, next++) w.u64(next).bytes(message(`k${next}`));
          c.send(w.frame());
        }
        for (const f of c.take(0x03)) {
          f.body.u8();
          const n = f.body.i32();
          for (let i = 0; i < n; i++) confirmed.push(f.body.u64());
        }
        await new Promise((r) => setTimeout(r, 1));
      }
      void broker.kill("SIGKILL");
      await broker.exited;
      c.close();

      const again = await spawnChildBroker({ dataDir, args: ["--stream-port", "0"] });
      try {
        const r = await RawStreamClient.login(await streamPortOf(again));
        const seq = await r.request((corr) => new FrameWriter(0x05).u32(corr).str("nk-writer").str("nk").frame(), 0x05);
        assert.equal(seq.code, 1);
        const last = Math.max(...confirmed);
        assert.ok(seq.frame.body.u64() >= last, "the publisher's sequence covers every confirmed id");
        assert.equal((await r.request((corr) => new FrameWriter(0x07).u32(corr).u8(0).str("nk").u16(1).u16(60000).map([]).frame(), 0x07)).code, 1);
        // Publishing ids start at 1 and offsets at 0: id i is at offset i - 1.
        const bodies: string[] = [];
        while (bodies.length < last) {
          const d = await r.next(0x08, 10_000);
          d.body.u8();
          const chunk = d.raw.subarray(5);
          for (const m of chunkMessages(chunk)) bodies.push(bodyOf(m!));
        }
        for (const id of confirmed) assert.equal(bodies[id - 1], `k${id}`);
        r.close();
      } finally {
        await again.kill("SIGTERM");
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
