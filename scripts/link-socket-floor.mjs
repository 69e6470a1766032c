#!/usr/bin/env node
// The floor under a forwarded message's link cost (docs/PERFORMANCE.md, "Forwarded cost, seventh
// pass"): CPU per message of only moving `size`-byte bodies from one Node process to another over
// a socket, written as the link's writer writes them (a head and the body per message, a turn's
// pieces corked into one writev, src/node-link/link-writer.ts) and read by a process that only
// counts the bytes. No broker, no framing, no queue: what any design that hands the body to the
// leading node over a socket pays at least. Both processes' user and kernel CPU (/proc/<pid>/stat)
// per message, over TCP on loopback (between machines) and a Unix socket (between `coney --workers`).
//   node scripts/link-socket-floor.mjs [messages=200000] [size=4096] [perTurn=20]
import { Buffer } from "node:buffer";
import { fork } from "node:child_process";
import net from "node:net";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setImmediate } from "node:timers";

const [count = 200000, size = 4096, perTurn = 20] = process.argv.slice(2).map(Number);
const HEAD = 8;
/** user and system clock ticks (100 Hz) of a process so far. */
const ticks = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return [Number(f[11]), Number(f[12])];
};

async function reader() {
  const path = process.env.FLOOR_SOCK;
  const server = net.createServer((s) => {
    let got = 0;
    s.on("data", (c) => {
      got += c.length;
      if (got >= count * (HEAD + size)) process.send("done");
    });
  });
  await new Promise((r) => (path ? server.listen(path, r) : server.listen(0, "127.0.0.1", r)));
  process.send({ to: path || server.address().port });
}

async function writer() {
  const { to } = await new Promise((r) => process.once("message", r));
  const s = typeof to === "string" ? net.connect(to) : net.connect(to, "127.0.0.1");
  s.setNoDelay(true);
  await new Promise((r) => s.once("connect", r));
  const go = new Promise((r) => process.once("message", r));
  process.send("ready");
  await go;
  const body = Buffer.alloc(size, 7);
  for (let i = 0; i < count; ) {
    s.cork();
    for (let k = 0; k < perTurn && i < count; k++, i++) {
      const h = Buffer.allocUnsafe(HEAD);
      h.writeUInt32LE(size, 0);
      s.write(h);
      s.write(body);
    }
    s.uncork();
    await new Promise((r) => (s.writableNeedDrain ? s.once("drain", r) : setImmediate(r)));
  }
}

async function main() {
  for (const kind of ["tcp", "unix"]) {
    const sock = kind === "unix" ? join(mkdtempSync(join(tmpdir(), "link-floor-")), "s") : "";
    const r = fork(process.argv[1], process.argv.slice(2), { env: { ...process.env, FLOOR_ROLE: "reader", FLOOR_SOCK: sock } });
    const w = fork(process.argv[1], process.argv.slice(2), { env: { ...process.env, FLOOR_ROLE: "writer" } });
    const { to } = await new Promise((res) => r.once("message", res));
    w.send({ to });
    await new Promise((res) => w.once("message", res));
    const [rUser0, rSys0] = ticks(r.pid);
    const [wUser0, wSys0] = ticks(w.pid);
    const done = new Promise((res) => r.once("message", res));
    w.send("go");
    await done;
    const [rUser1, rSys1] = ticks(r.pid);
    const [wUser1, wSys1] = ticks(w.pid);
    const us = (t) => +(((t / 100) * 1e6) / count).toFixed(2);
    console.log(JSON.stringify({ kind, size, perTurn, writerUserUs: us(wUser1 - wUser0), writerSysUs: us(wSys1 - wSys0), readerUserUs: us(rUser1 - rUser0), readerSysUs: us(rSys1 - rSys0), totalUs: us(wUser1 - wUser0 + wSys1 - wSys0 + rUser1 - rUser0 + rSys1 - rSys0) }));
    r.kill();
    w.kill();
  }
}

if (process.env.FLOOR_ROLE === "reader") await reader();
else if (process.env.FLOOR_ROLE === "writer") await writer();
else await main();
