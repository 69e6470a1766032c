/**
 * DELIVER_OWN_RUN (issue 42, sixth pass): the leader's DELIVER_OWNs to one consumer of the
 * connecting node for consecutive link positions (the messages of a PUBLISH_RUN that consumer was
 * waiting for) in one frame:
 *   u32 consumer id | u8 redelivered | u32 delivery count | f64 first position | n × f64 entry id
 * the i-th entry id being the delivery of position first + i. The connecting node then splits and
 * dispatches one frame per run instead of one per message.
 *
 * Sent only to a connecting node that offered FEATURE_OWN_RUN in HELLO (link-handshake.ts); such
 * a node reads plain DELIVER_OWN frames too (link-frames.ts), which both ends share the reading of here.
 */
import type { LinkWriter } from "./link-writer.js";
import { DELIVER_OWN, DELIVER_OWN_RUN, FRAME_HEAD } from "./link-frames.js";
import { OpenFrame } from "./open-frame.js";

/** A run's frame stays within this many bytes (publish-runs.ts RUN_BYTES_MAX, for the same reason). */
const OWN_RUN_BYTES_MAX = 4096;
/** u32 consumer id | u8 redelivered | u32 delivery count | f64 first position. */
const OWN_RUN_HEAD = 17;

/** One delivery by position (LeaderLink hands the kept message to the consumer). */
export type OwnDelivery = (consumerId: number, entryId: number, redelivered: boolean, deliveryCount: number, position: number) => void;

/**
 * The leader's writing of DELIVER_OWN: in the open run when it continues it (same consumer and
 * flags, the next position, nothing else written since: the writer's `mark`), else a new frame —
 * a run when `runs`, else a DELIVER_OWN (DELIVER's fields, then f64 position). The open run is an
 * OpenFrame (open-frame.ts): LinkSession seals it before the writer's turn is written.
 */
export class OwnRuns extends OpenFrame {
  private consumerId = 0;
  private redelivered = false;
  private deliveryCount = 0;
  private nextPosition = 0;
  /** Runs opened so far (each one frame, however many deliveries it carries). */
  opened = 0;

  constructor(readonly runs: boolean) {
    super();
  }

  write(w: LinkWriter, consumerId: number, entryId: number, redelivered: boolean, deliveryCount: number, position: number): void {
    if (!this.runs) return writeOne(w, consumerId, entryId, redelivered, deliveryCount, position);
    if (!this.continues(w, consumerId, redelivered, deliveryCount, position)) this.open(w, consumerId, redelivered, deliveryCount, position);
    const at = w.reserve(8);
    w.slab.writeDoubleLE(entryId, at);
    this.grew(w, 8);
    this.nextPosition = position + 1;
  }

  private continues(w: LinkWriter, consumerId: number, redelivered: boolean, deliveryCount: number, position: number): boolean {
    return (
      this.isOpenAt(w) &&
      position === this.nextPosition &&
      consumerId === this.consumerId &&
      redelivered === this.redelivered &&
      deliveryCount === this.deliveryCount &&
      this.length + 8 <= OWN_RUN_BYTES_MAX - 4
    );
  }

  private open(w: LinkWriter, consumerId: number, redelivered: boolean, deliveryCount: number, position: number): void {
    this.opened++;
    const p = this.begin(w, DELIVER_OWN_RUN, FRAME_HEAD + OWN_RUN_HEAD) + FRAME_HEAD;
    const b = w.slab;
    b.writeUInt32LE(consumerId, p);
    b[p + 4] = redelivered ? 1 : 0;
    b.writeUInt32LE(deliveryCount, p + 5);
    b.writeDoubleLE(position, p + 9);
    this.consumerId = consumerId;
    this.redelivered = redelivered;
    this.deliveryCount = deliveryCount;
  }
}

/** DELIVER_OWN: u32 consumer id | f64 entry id | u8 redelivered | u32 delivery count | f64 position. */
function writeOne(w: LinkWriter, consumerId: number, entryId: number, redelivered: boolean, deliveryCount: number, position: number): void {
  const at = w.reserve(FRAME_HEAD + 25);
  const b = w.slab;
  b.writeUInt32LE(1 + 25, at);
  b[at + 4] = DELIVER_OWN;
  const p = at + FRAME_HEAD;
  b.writeUInt32LE(consumerId, p);
  b.writeDoubleLE(entryId, p + 4);
  b[p + 12] = redelivered ? 1 : 0;
  b.writeUInt32LE(deliveryCount, p + 13);
  b.writeDoubleLE(position, p + 17);
}

/** The connecting node's reading of a DELIVER_OWN or DELIVER_OWN_RUN frame: each delivery, in order, to `each`. */
export function readOwn(f: Buffer, each: OwnDelivery): void {
  const p = FRAME_HEAD;
  if (f[4] === DELIVER_OWN) return each(f.readUInt32LE(p), f.readDoubleLE(p + 4), f[p + 12] === 1, f.readUInt32LE(p + 13), f.readDoubleLE(p + 17));
  const consumerId = f.readUInt32LE(p);
  const redelivered = f[p + 4] === 1;
  const deliveryCount = f.readUInt32LE(p + 5);
  let position = f.readDoubleLE(p + 9);
  if ((f.length - p - OWN_RUN_HEAD) % 8 !== 0) throw new Error("DELIVER_OWN_RUN frame: its entry ids do not fill it");
  for (let at = p + OWN_RUN_HEAD; at < f.length; at += 8) each(consumerId, f.readDoubleLE(at), redelivered, deliveryCount, position++);
}
