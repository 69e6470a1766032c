/**
 * A queue's length limits (max-length, max-length-bytes: argument or policy), counted as
 * RabbitMQ counts them: ready messages, paged-out ones included, unacknowledged ones not. The
 * overflow mode says what happens at the limit: drop-head drops the oldest (Queue.trim),
 * reject-publish and reject-publish-dlx refuse the new message.
 */
import type { QueueSettings } from "./queue-settings.js";

export function hasLengthLimit(s: QueueSettings): boolean {
  return s.maxLength !== null || s.maxLengthBytes !== null;
}

/** RabbitMQ's will_overflow: would one more message of `size` body bytes exceed a limit? */
export function wouldOverflow(s: QueueSettings, count: number, bytes: number, size: number): boolean {
  return (s.maxLength !== null && count + 1 > s.maxLength) || (s.maxLengthBytes !== null && bytes + size > s.maxLengthBytes);
}

/** Over a limit now: drop-head drops from the head while this holds. */
export function isOverLimit(s: QueueSettings, count: number, bytes: number): boolean {
  return (s.maxLength !== null && count > s.maxLength) || (s.maxLengthBytes !== null && bytes > s.maxLengthBytes);
}
