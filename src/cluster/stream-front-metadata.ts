/**
 * Metadata for a client on a follower's stream TLS listener (docs/STREAMS.md, "Followers serve
 * the stream port"): the follower asks the leader over its plain listener, so the leader names
 * every node's plain port; the answer is rewritten to name each node's TLS port instead, as the
 * leader would for a client of its own TLS listener. A node without a TLS port keeps its entry.
 */
import { FrameCursor, FrameWriter } from "../stream/wire.js";

/** The node's TLS port for its advertised plain endpoint; null when it has none. */
export type TlsPortOf = (host: string, port: number) => number | null;

/** `body`: a Metadata response frame without its size prefix. Returns the whole new frame. */
export function metadataForTls(body: Buffer, tlsPortOf: TlsPortOf): Buffer {
  const key = body.readUInt16BE(0);
  const version = body.readUInt16BE(2);
  const c = new FrameCursor(body.subarray(4));
  const corr = c.u32();
  const n = c.i32();
  const w = new FrameWriter(key, version, 128).u32(corr).i32(n);
  for (let i = 0; i < n; i++) {
    const ref = c.u16();
    const host = c.str() ?? "";
    const port = c.u32();
    w.u16(ref).str(host).u32(tlsPortOf(host, port) ?? port);
  }
  const head = w.frame();
  // The streams' part follows unchanged.
  const rest = body.subarray(body.length - c.remaining);
  head.writeUInt32BE(head.length - 4 + rest.length, 0);
  return Buffer.concat([head, rest]);
}
