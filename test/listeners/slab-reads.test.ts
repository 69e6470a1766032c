// Socket reads into slabs (src/listeners/slab-reads.ts): the tails' sizing, that nothing read is
// ever overwritten, and a real accepted socket moved onto slabs: every byte arrives in order,
// large reads happen, and pause() stops reading until resume().
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { once } from "node:events";
import { LARGE_SLAB, LARGE_TAIL_MIN, readIntoSlabs, SlabTails, SMALL_SLAB } from "../../src/listeners/slab-reads.js";

/** Simulates a read of `n` bytes of `fill` into the next tail; returns the chunk. */
function readInto(t: SlabTails, n: number, fill: number): Buffer {
  const tail = t.next();
  assert.ok(n <= tail.length, `a read of ${n} fits the tail of ${tail.length}`);
  tail.fill(fill, 0, n);
  return t.read(n);
}

describe("slab tails", () => {
  it("start small, go large after a read that fills its tail, and small again after four tiny reads in a row", () => {
    const t = new SlabTails();
    assert.equal(t.next().length, SMALL_SLAB);
    readInto(t, 100, 1);
    assert.equal(t.readsLarge, false);
    const full = t.next().length;
    readInto(t, full, 2);
    assert.equal(t.readsLarge, true);
    assert.equal(t.next().length, LARGE_SLAB);
    readInto(t, LARGE_SLAB - LARGE_TAIL_MIN + 1, 3);
    assert.ok(t.next().length >= LARGE_TAIL_MIN, "a large socket's tail is never under its minimum");
    // A lone ack between large reads keeps the slab; four heartbeats in a row give it up.
    readInto(t, 21, 4);
    assert.equal(t.readsLarge, true);
    readInto(t, 5000, 5);
    for (let i = 0; i < 3; i++) readInto(t, 8, 6);
    assert.equal(t.readsLarge, true, "three tiny reads in a row keep the large slab");
    readInto(t, 8, 7);
    assert.equal(t.readsLarge, false);
    assert.equal(t.next().length, SMALL_SLAB);
  });

  it("never hands out bytes a returned chunk still shows", () => {
    const t = new SlabTails();
    const kept: Array<{ chunk: Buffer; fill: number }> = [];
    const sizes = [5, 16 * 1024 - 5, 70_000, 100_000, 90_000, 8, 3000, 12_000, 1, 16_000];
    for (let i = 0; i < 200; i++) {
      const tail = t.next();
      const n = Math.min(sizes[i % sizes.length]!, tail.length);
      const fill = i % 251;
      kept.push({ chunk: readInto(t, n, fill), fill });
    }
    for (const { chunk, fill } of kept) assert.ok(chunk.every((b) => b === fill), "a chunk read earlier is unchanged");
  });

  it("leaves a socket it cannot move as it is", () => {
    const notTcp = { _handle: null } as unknown as Socket;
    assert.equal(readIntoSlabs(notTcp), notTcp);
  });
});

describe("an accepted socket reading into slabs", () => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  after(() => {
    // Also after a failed test: nothing left open keeps the run from ending.
    for (const s of sockets) s.destroy();
    for (const s of servers) if (s.listening) s.close();
  });

  /** A server whose accepted sockets are moved onto slabs; resolves with the first one and the client. */
  async function pair(): Promise<{ moved: Socket; client: Socket; chunks: Buffer[] }> {
    const chunks: Buffer[] = [];
    let resolveMoved!: (s: Socket) => void;
    const accepted = new Promise<Socket>((r) => (resolveMoved = r));
    const server = createServer({ pauseOnConnect: true }, (socket) => {
      const moved = readIntoSlabs(socket);
      moved.on("data", (c: Buffer) => chunks.push(c));
      moved.resume();
      resolveMoved(moved);
    });
    servers.push(server);
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const client = connect((server.address() as AddressInfo).port, "127.0.0.1");
    await once(client, "connect");
    const moved = await accepted;
    sockets.push(client, moved);
    return { moved, client, chunks };
  }

  it("delivers every byte in order, some in reads larger than Node's 64 KiB", async () => {
    const { moved, client, chunks } = await pair();
    const sent = randomBytes(6 * 1024 * 1024);
    for (let off = 0; off < sent.length; off += 1_000_000) client.write(sent.subarray(off, off + 1_000_000));
    client.end();
    await once(moved, "end");
    assert.ok(Buffer.concat(chunks).equals(sent), "the bytes read are the bytes sent");
    assert.ok(chunks.some((c) => c.length > 64 * 1024), `a read took more than 64 KiB (largest ${Math.max(...chunks.map((c) => c.length))})`);
    moved.destroy();
  });

  it("keeps the server's close waiting until the connection has closed", async () => {
    const { moved, client } = await pair();
    const server = servers[servers.length - 1]!;
    let closed = false;
    server.close(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(closed, false, "server.close() waits for the open connection");
    client.end();
    await once(moved, "close");
    while (!closed) await new Promise((r) => setTimeout(r, 5));
  });

  it("reads nothing while paused, and everything once resumed", async () => {
    const { moved, client, chunks } = await pair();
    client.write("before");
    while (chunks.length === 0) await new Promise((r) => setTimeout(r, 5));
    moved.pause();
    const received = (): number => chunks.reduce((n, c) => n + c.length, 0);
    const atPause = received();
    client.write(randomBytes(100_000));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(received(), atPause, "no read while paused");
    moved.resume();
    while (received() < atPause + 100_000) await new Promise((r) => setTimeout(r, 5));
    assert.equal(received(), "before".length + 100_000);
    client.destroy();
    moved.destroy();
  });
});
