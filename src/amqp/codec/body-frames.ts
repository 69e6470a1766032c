/**
 * Splits a message body into body frames (AMQP 0-9-1 §4.2.6.2: frames of at most frame_max − 8
 * payload bytes: 7 of frame header, 1 frame-end). The body may be in parts (message-body.ts);
 * parts are re-cut to the receiving connection's frame_max without being joined: a frame that
 * spans two parts is written as two pieces. When the publisher's and the consumer's frame_max
 * agree, as they usually do, each part is exactly one outgoing frame. `copy`: the body is only
 * lent for the time of the call (a stream reader reuses its buffer), so no piece is referenced.
 */
import { isBodyParts, type Body } from "../../broker/values/message-body.js";
import type { OutputBuffer } from "./output-buffer.js";

export function writeBody(out: OutputBuffer, channel: number, body: Body, frameMax: number, copy = false): void {
  const max = frameMax - 8;
  if (!isBodyParts(body)) {
    for (let off = 0; off < body.length; off += max) {
      out.writeBodyFrame(channel, off === 0 && body.length <= max ? body : body.subarray(off, Math.min(off + max, body.length)), copy);
    }
    return;
  }
  let remaining = 0;
  for (const part of body) remaining += part.length;
  let i = 0; // current part
  let off = 0; // bytes of it already sent
  while (remaining > 0) {
    const size = Math.min(max, remaining);
    const part = body[i]!;
    if (part.length - off >= size) {
      // The common case: the frame lies within one part.
      out.writeBodyFrame(channel, off === 0 && size === part.length ? part : part.subarray(off, off + size), copy);
      off += size;
    } else {
      out.beginBodyFrame(channel, size);
      let need = size;
      while (need > 0) {
        const p = body[i]!;
        const n = Math.min(need, p.length - off);
        out.bodyPiece(off === 0 && n === p.length ? p : p.subarray(off, off + n), copy);
        need -= n;
        off += n;
        if (off === p.length) {
          i++;
          off = 0;
        }
      }
      out.endBodyFrame();
    }
    if (i < body.length && off === body[i]!.length) {
      i++;
      off = 0;
    }
    remaining -= size;
  }
}
