/**
 * A stored record's address as one number, kept on the queue entry: segment id × 2^32 + byte
 * offset. Segment ids start at 1, so 0 means "not stored"; ids stay below 2^21 so the value is
 * an exact double (2^53).
 */
const SPLIT = 2 ** 32;

export function recordRef(segmentId: number, offset: number): number {
  return segmentId * SPLIT + offset;
}

export function refSegment(ref: number): number {
  return Math.floor(ref / SPLIT);
}

export function refOffset(ref: number): number {
  return ref % SPLIT;
}
