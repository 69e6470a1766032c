/**
 * The reading half of `coney-perf relay` (relay-floor.ts), in a process of its own so that its
 * CPU is measured apart from the writer's. It connects to the writer's port (its first argument)
 * and reads into one reused 256 KiB buffer (`onread`, as Coney's listener reads into slabs:
 * src/listeners/slab-reads.ts), dropping the bytes; when the writer ends it reports, over IPC,
 * the CPU it spent from the connection on, { user, system } in µs, and the bytes it read.
 */
import { connect } from "node:net";

const buffer = Buffer.allocUnsafe(256 * 1024);
let bytes = 0;
const socket = connect({
  port: Number(process.argv[2]),
  host: "127.0.0.1",
  onread: {
    buffer,
    callback: (n: number) => {
      bytes += n;
      return true;
    },
  },
});
let start = process.cpuUsage();
socket.on("connect", () => {
  start = process.cpuUsage();
});
socket.on("end", () => {
  const used = process.cpuUsage(start);
  process.send?.({ user: used.user, system: used.system, bytes }, () => process.exit(0));
});
