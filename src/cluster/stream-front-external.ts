/**
 * SASL EXTERNAL for a follower's TLS clients (docs/STREAMS.md, "Followers serve the stream port"):
 * the leader, reached over its plain port, sees no client certificate, so the follower offers
 * EXTERNAL itself to a client whose certificate it verified (added to the leader's SaslHandshake
 * answer) and turns that client's EXTERNAL SaslAuthenticate into the login it vouches for with
 * the cluster's secret (auth/forwarded-certificate.ts). Every other frame passes unchanged.
 */
import { FORWARDED_EXTERNAL } from "../auth/forwarded-certificate.js";
import { CMD, RESPONSE } from "../stream/protocol.js";
import { FrameCursor, FrameWriter } from "../stream/wire.js";

/** The leader's SaslHandshake answer (a frame body) with EXTERNAL among its mechanisms. */
export function handshakeWithExternal(body: Buffer): Buffer {
  const c = new FrameCursor(body.subarray(4));
  const corr = c.u32();
  const code = c.u16();
  const mechanisms: string[] = [];
  for (let n = c.count(2); n > 0; n--) mechanisms.push(c.str() ?? "");
  if (!mechanisms.includes("EXTERNAL")) mechanisms.push("EXTERNAL");
  return mechanisms.reduce((w, m) => w.str(m), new FrameWriter(CMD.saslHandshake | RESPONSE, 1, 64).u32(corr).u16(code).i32(mechanisms.length)).frame();
}

/** The client's SaslAuthenticate (a frame body) as the vouched login when it asks for EXTERNAL; null for any other mechanism. */
export function vouchedAuthenticate(body: Buffer, vouch: Buffer): Buffer | null {
  try {
    const c = new FrameCursor(body.subarray(4));
    const corr = c.u32();
    if (c.str() !== "EXTERNAL") return null;
    return new FrameWriter(CMD.saslAuthenticate, 1, 64 + vouch.length).u32(corr).str(FORWARDED_EXTERNAL).bytes(vouch).frame();
  } catch {
    return null; // malformed: passed on as it came, for the leader to refuse
  }
}
