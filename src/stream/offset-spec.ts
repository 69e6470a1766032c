/**
 * The stream protocol's offset specification (Subscribe, and a ConsumerUpdate answer): a u16 type,
 * then an u64 offset or an i64 timestamp for the types that carry one.
 */
import type { StreamStart } from "../broker/index.js";
import { OFFSET_TYPE } from "./protocol.js";
import type { FrameCursor } from "./wire.js";

/** The specification at the cursor; null for type 0 (none) or one this node does not know. */
export function offsetSpec(body: FrameCursor): StreamStart | null {
  const type = body.u16();
  switch (type) {
    case 0:
      return null;
    case OFFSET_TYPE.first:
      return { kind: "first" };
    case OFFSET_TYPE.last:
      return { kind: "last" };
    case OFFSET_TYPE.next:
      return { kind: "next" };
    case OFFSET_TYPE.offset:
      return { kind: "offset", offset: body.u64() };
    case OFFSET_TYPE.timestamp:
      return { kind: "timestamp", ms: body.i64() };
    default:
      return null;
  }
}
