/**
 * The `x-amqp-1.0-properties` header: an AMQP 1.0 properties section, encoded, carried through
 * the domain's (AMQP 0-9-1) model. The model has no place for `to`, `subject`,
 * `absolute-expiry-time`, `group-sequence` or `reply-to-group-id`, so a message published over
 * 1.0 that sets one of them keeps its whole properties section in this header (RabbitMQ 3.x's
 * AMQP 1.0 plugin writes the same header), and a message converted back to 1.0 takes its
 * properties section from the header when it has one (RabbitMQ 4's mc_amqpl does). That is what
 * lets those fields survive where only the model is kept: a stream's log (so property filter
 * expressions can match them: property-filters.ts), dead-lettering, a shovel. A 0-9-1 publisher
 * may set the header itself (RabbitMQ 4 honours it too).
 *
 * Invariant: the header's value is one whole properties section; a value that is not one is
 * treated as an ordinary header (validSection returns null), never half-used.
 */
import { Amqp10Reader } from "../amqp10/amqp10-decoder.js";
import type { Amqp10Message } from "../amqp10/message-sections.js";
import { SECTION } from "../amqp10/message-sections.js";
import type { FieldValue } from "../broker/values/field-value.js";

export const PROPERTIES_HEADER = "x-amqp-1.0-properties";

/**
 * The properties section's bytes to keep in the header for a message whose properties section is
 * `section`, or null when every field it sets has a place in the model (the usual case: nothing
 * is allocated). A copy: the payload's memory may be the transport's to reuse.
 */
export function propertiesToKeep(m: Amqp10Message, section: Buffer | null): Buffer | null {
  const p = m.properties;
  if (p === undefined || (p.to === undefined && p.subject === undefined && p.absoluteExpiryTime === undefined && p.groupSequence === undefined && p.replyToGroupId === undefined)) return null;
  return section === null ? null : Buffer.from(section);
}

/** The header's value as a properties section to write as it is; null when it is not one. */
export function validSection(v: FieldValue | undefined): Buffer | null {
  if (v === undefined) return null;
  // RabbitMQ 3.x writes it as a long string of the section's bytes, which the 0-9-1 codec reads as
  // UTF-8 (exact for a section whose bytes are valid UTF-8); Coney writes bytes.
  const bytes = Buffer.isBuffer(v) ? v : typeof v === "string" ? Buffer.from(v, "utf8") : null;
  if (bytes === null || bytes.length === 0) return null;
  try {
    const r = new Amqp10Reader(bytes);
    const section = r.read();
    if (!r.done || section.type !== "described" || section.value.type !== "list") return null;
    const d = section.descriptor;
    const isProperties = (d.type === "ulong" && d.value === BigInt(SECTION.properties)) || (d.type === "symbol" && d.value === "amqp:properties:list");
    return isProperties ? bytes : null;
  } catch {
    return null;
  }
}
