#!/usr/bin/env node
// The link's own part of a forwarded publish, alone in one process (docs/PERFORMANCE.md, "Forwarded
// cost, sixth pass"): the connecting node writing small messages as PUBLISH frames or as
// PUBLISH_RUNs (src/node-link/publish-runs.ts) into a LinkWriter whose socket only counts bytes, and
// the leader splitting and decoding those bytes into Messages (FrameSplitter, readMessage /
// readPublishRun), without the queue. Batches of `batch` messages per event-loop turn, as a
// forwarding node's turn carries; rounds alternate the two ways. CPU time (process.cpuUsage) per
// message: on a loaded machine a single round is noisy, the medians less so. The leader reads the
// written bytes in reads of LINK_BENCH_READ bytes (64 KiB), so a frame that spans two reads is joined as on a socket.
//   node scripts/link-publish-frames-bench.mjs [messages=200000] [size=16] [batch=24] [rounds=5]
// Needs `npm run build` first.
import { Buffer } from "node:buffer";
import { setImmediate } from "node:timers";

const [messages = 200000, size = 16, batch = 24, rounds = 5] = process.argv.slice(2).map(Number);
const { createMessage } = await import("../dist/src/broker/index.js");
const { LinkWriter } = await import("../dist/src/node-link/link-writer.js");
const { PublishRuns, readPublishRun } = await import("../dist/src/node-link/publish-runs.js");
const { FrameSplitter } = await import("../dist/src/node-link/frame-splitter.js");
const F = await import("../dist/src/node-link/link-frames.js");

/**
 * A socket that keeps what is written (the decode half reads it back): a turn's corked pieces are
 * joined into one chunk, as the kernel copies a writev into the socket (the copy counts as the
 * writer's, as a socket write's kernel copy would).
 */
function sink() {
  const chunks = [];
  let corked = null;
  return {
    chunks,
    socket: {
      destroyed: false,
      writableNeedDrain: false,
      cork() { corked = []; },
      uncork() { chunks.push(Buffer.concat(corked)); corked = null; },
      write(b, cb) { if (corked !== null) corked.push(b); else chunks.push(Buffer.from(b)); cb?.(); return true; },
    },
  };
}

/** The leader's socket reads: LINK_BENCH_READ bytes each (default 64 KiB), cut from the written bytes whatever the turns. */
const READ = Number(process.env.LINK_BENCH_READ ?? 65536);

const props = { contentType: "application/octet-stream" };
const body = Buffer.alloc(size, 7);
const ids = [1];

async function encode(runs) {
  const out = sink();
  const w = new LinkWriter(out.socket, () => publishes.seal());
  const publishes = new PublishRuns(runs);
  const t0 = process.cpuUsage();
  for (let i = 0; i < messages; ) {
    const end = Math.min(messages, i + batch);
    for (; i < end; i++) publishes.write(w, createMessage("", "bench-q", props, null, body, 1_700_000_000_000 + i), ids);
    await new Promise((r) => setImmediate(r));
  }
  const t = process.cpuUsage(t0);
  return { us: (t.user + t.system) / messages, chunks: out.chunks };
}

function decode(chunks) {
  const cache = new F.PropertiesCache();
  const splitter = new FrameSplitter(1 << 20);
  let n = 0;
  const each = () => n++;
  const onFrame = (f) => {
    if (f[4] === F.PUBLISH_RUN) readPublishRun(f, cache, null, each);
    else if (F.readMessage(f, F.FRAME_HEAD + 1 + 4 * f[F.FRAME_HEAD], cache, null)) n++;
  };
  const all = Buffer.concat(chunks);
  const reads = [];
  for (let at = 0; at < all.length; at += READ) reads.push(all.subarray(at, at + READ));
  const t0 = process.cpuUsage();
  for (const c of reads) splitter.push(c, onFrame);
  const t = process.cpuUsage(t0);
  if (n !== messages) throw new Error(`decoded ${n} of ${messages}`);
  return (t.user + t.system) / messages;
}

const results = { publish: { enc: [], dec: [] }, run: { enc: [], dec: [] } };
for (let r = 0; r < rounds + 1; r++) {
  for (const way of r % 2 === 0 ? ["publish", "run"] : ["run", "publish"]) {
    const { us, chunks } = await encode(way === "run");
    const dec = decode(chunks);
    // The first round warms both ways up (JIT) and is not counted.
    if (r > 0) {
      results[way].enc.push(us);
      results[way].dec.push(dec);
    }
  }
}
const median = (v) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
const ns = (us) => Math.round(us * 1000);
console.log(JSON.stringify({ messages, size, batch, rounds, publishEncodeNs: ns(median(results.publish.enc)), runEncodeNs: ns(median(results.run.enc)), publishDecodeNs: ns(median(results.publish.dec)), runDecodeNs: ns(median(results.run.dec)) }));
