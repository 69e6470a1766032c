/**
 * `coney-perf relay`: the CPU floor under relaying a body on this machine. A broker that takes a
 * message from one socket and hands it to another pays at least one read and one write of its
 * body — the kernel copying it in and out and Node moving the buffers — before any work of its
 * own. This measures exactly that, with no broker and no protocol: a writer process sends bodies
 * over loopback TCP to a reader process (relay-reader.ts, which reads into one reused buffer as
 * Coney's listener reads into slabs), and each reports its CPU per body.
 *
 * The writer sends each body either whole (one write) or as AMQP 0-9-1 body frames of a given
 * frame size (7-byte header, payload, frame-end byte, corked into one writev), which is how a
 * broker sends a delivery to a client that negotiated that frame_max. Bodies are taken in turn
 * from a 64 MiB arena, so, as in a broker with many messages in flight, a body is not in the
 * CPU's cache when it is written. The floor for a broker's CPU per message is read + framed write
 * (docs/PERFORMANCE.md, "Twelfth pass"). It is a floor for large bodies only: a broker that moves
 * several small bodies per read and per writev spends less per body than this one-body-per-writev
 * writer (Coney does at 64 KB); from 256 KB up every body is already reads and writes of its own.
 */
import { fork } from "node:child_process";
import { once } from "node:events";
import { createServer, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { formatSize } from "./size-sweep.js";

export interface RelayOptions {
  readonly sizes: readonly number[];
  /** frame_max of the framed writes (8192: @cloudamqp/amqp-client's default, which Coney and RabbitMQ accept). */
  readonly frameMax: number;
  /** Bytes sent per measurement (bodies = this / size, at least 1,000). */
  readonly bytesPerRun: number;
}

export interface RelayCost {
  /** µs of CPU per body: user and system. */
  readonly user: number;
  readonly system: number;
}

const ARENA = 64 * 1024 * 1024;
const HIGH_WATER = 8 * 1024 * 1024;
const FRAME_OVERHEAD = 8;
const FRAME_END = Buffer.from([0xce]);

/** One run: `count` bodies of `size` bytes, whole or framed; the writer's and the reader's CPU per body. */
export async function relayOnce(size: number, count: number, frameMax: number | null): Promise<{ writer: RelayCost; reader: RelayCost }> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  const reader = fork(fileURLToPath(new URL("./relay-reader.js", import.meta.url)), [String(port)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  // A reader that dies (it could not connect) ends the run with an error instead of a wait.
  const died = once(reader, "exit").then(([code]) => Promise.reject(new Error(`the relay reader exited with ${String(code)} before reporting`)));
  died.catch(() => undefined);
  try {
    const [socket] = (await Promise.race([once(server, "connection"), died])) as [Socket];
    const report = Promise.race([once(reader, "message"), died]);
    const arena = Buffer.alloc(ARENA, 0x5a);
    // Every frame of a body is full but the last, whose length is the same for every body.
    const frameHeader = (length: number): Buffer => Buffer.from([3, 0, 1, length >>> 24, (length >>> 16) & 0xff, (length >>> 8) & 0xff, length & 0xff]);
    const payloadMax = frameMax === null ? size : frameMax - FRAME_OVERHEAD;
    const fullHeader = frameHeader(payloadMax);
    const lastHeader = frameHeader(size % payloadMax === 0 ? payloadMax : size % payloadMax);
    const start = process.cpuUsage();
    await writeAll(socket, count, (i) => {
      const at = (i * size) % (ARENA - size + 1);
      const body = arena.subarray(at, at + size);
      if (frameMax === null) return void socket.write(body);
      socket.cork();
      for (let o = 0; o < size; o += payloadMax) {
        const end = Math.min(size, o + payloadMax);
        socket.write(end === size ? lastHeader : fullHeader);
        socket.write(body.subarray(o, end));
        socket.write(FRAME_END);
      }
      socket.uncork();
    });
    const written = process.cpuUsage(start);
    const [read] = (await report) as [{ user: number; system: number; bytes: number }];
    const expected = count * (size + (frameMax === null ? 0 : Math.ceil(size / payloadMax) * FRAME_OVERHEAD));
    if (read.bytes !== expected) throw new Error(`the reader got ${read.bytes} bytes, not the ${expected} written`);
    return {
      writer: { user: written.user / count, system: written.system / count },
      reader: { user: read.user / count, system: read.system / count },
    };
  } finally {
    reader.kill();
    server.close();
  }
}

/** Writes `count` bodies, waiting for the socket to drain above HIGH_WATER, then ends it. */
function writeAll(socket: Socket, count: number, writeOne: (i: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let i = 0;
    socket.once("error", reject);
    const pump = (): void => {
      while (i < count) {
        writeOne(i++);
        if (socket.writableLength > HIGH_WATER) {
          socket.once("drain", pump);
          return;
        }
      }
      socket.end(resolve);
    };
    pump();
  });
}

/** The table: per size, the writer whole and framed, the reader, and the floor (read + framed write). */
export async function runRelayFloor(o: RelayOptions, print: (line: string) => void): Promise<void> {
  const us = (c: RelayCost): string => `${c.user.toFixed(0)} + ${c.system.toFixed(0)}`;
  print(`CPU per body in µs (user + system); framed writes use frame_max ${o.frameMax}`);
  print("| body | write, whole | write, framed | read | floor (read + framed write) |");
  print("|---|---|---|---|---|");
  for (const size of o.sizes) {
    const count = Math.max(1000, Math.floor(o.bytesPerRun / size));
    const whole = await relayOnce(size, count, null);
    const framed = await relayOnce(size, count, o.frameMax);
    const read = framed.reader;
    const floor = read.user + read.system + framed.writer.user + framed.writer.system;
    print(`| ${formatSize(size)} | ${us(whole.writer)} | ${us(framed.writer)} | ${us(read)} | ${floor.toFixed(0)} |`);
  }
}
