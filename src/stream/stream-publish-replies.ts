/**
 * What a native publisher is told of its messages: PublishConfirm with their publishing ids, and
 * PublishError with an id and a response code each (local publishers: stream-publishers.ts; those
 * on a stream another worker leads: stream-remote-publishers.ts).
 */
import type { PublisherState, StreamContext } from "./stream-context.js";
import { CMD } from "./protocol.js";
import { FrameWriter } from "./wire.js";

export function confirm(c: StreamContext, p: PublisherState, ids: readonly number[]): void {
  if (c.closed) return;
  p.confirmed += ids.length;
  c.node.confirmed(ids.length);
  const w = new FrameWriter(CMD.publishConfirm, 1, 9 + ids.length * 8).u8(p.id).i32(ids.length);
  for (const id of ids) w.u64(id);
  c.send(w.frame());
}

export function publishError(c: StreamContext, publisherId: number, errors: readonly (readonly [number, number])[]): void {
  const p = c.publishers.get(publisherId);
  if (p) p.errored += errors.length;
  for (const [, code] of errors) c.node.countError(code);
  if (c.closed) return;
  const w = new FrameWriter(CMD.publishError, 1, 9 + errors.length * 10).u8(publisherId).i32(errors.length);
  for (const [id, code] of errors) w.u64(id).u16(code);
  c.send(w.frame());
}
