/**
 * The load generator's socket: one TCP connection to the broker whose reads land in one reused
 * 256 KiB buffer handed to `read` (Node's `onread`), so a client that only scans frame headers
 * allocates nothing per read. Shared by coney-perf's raw AMQP 0-9-1 and AMQP 1.0 clients.
 */
import { connect, type Socket } from "node:net";

const READ_BUFFER_BYTES = 256 * 1024;

/** Connects to the URL's host and port (5672 by default); `read` gets each read's buffer and length (false pauses reading). */
export function connectRawSocket(url: URL, read: (buf: Buffer, n: number) => boolean): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const s = connect({
      host: url.hostname,
      port: Number(url.port || 5672),
      noDelay: true,
      onread: { buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES), callback: (n: number, buf: Uint8Array) => read(buf as Buffer, n) },
    });
    s.once("connect", () => resolve(s));
    s.once("error", reject);
  });
}
