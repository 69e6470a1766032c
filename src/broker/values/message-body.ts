/**
 * A message body as it arrived: one Buffer when it came in one body frame, or the payloads of
 * its body frames, in order, when it came in several. A client with frame_max 8192 (amqplib's
 * and @cloudamqp/amqp-client's default) sends a 64 KB body as nine frames; joining them would
 * allocate and copy every large body once more, and the garbage collector would pay for it
 * (profiled: a third of the broker's CPU at 64 KB). So bodies stay in parts on the paths every
 * message takes (delivery, the message store) and are joined only by rare readers.
 *
 * Invariant: an array body has at least two parts, and none of them is empty.
 */
export type Body = Buffer | readonly Buffer[];

/**
 * True when the body is in parts. Array.isArray is a V8 intrinsic; Buffer.isBuffer is an
 * instanceof walk that showed in the 16 B profile, so hot paths ask this instead.
 */
export function isBodyParts(body: Body): body is readonly Buffer[] {
  return Array.isArray(body);
}

export function bodyLength(body: Body): number {
  if (!isBodyParts(body)) return body.length;
  let n = 0;
  for (const part of body) n += part.length;
  return n;
}

/** The body as one Buffer (a copy when it is in parts): for readers off the hot path. */
export function joinBody(body: Body): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.concat(body as Buffer[]);
}
