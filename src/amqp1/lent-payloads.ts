/**
 * The lease on an incoming delivery's payload (issue 44), as AMQP 0-9-1's content assembly
 * leases a body (src/amqp/channel/content-assembly.ts). On a connection whose read slabs come
 * back to a pool (src/listeners/slab-pool.ts) a transfer's payload is a slice of a slab (amqp1-
 * frames.ts), and the message made of it keeps slices of it: its body, its original form's
 * sections (original-form.ts), binary values of its properties. So the payload's slabs are held
 * from the moment each transfer is cut (the socket may read into the next slab before the
 * delivery's last transfer arrives) until the message's last holder lets go
 * (values/body-lease.ts): the publish, then each queue entry, each unfinished socket write of it
 * (amqp1-output.ts), and the store's unwritten records; an accepted outcome releases the entry's
 * hold (delivery-outcomes.ts).
 *
 * A delivery of several transfers is kept as its pieces (pieced-message.ts: its body and original
 * form are slices of them, not a joined copy), so its lease holds every slab a piece lies in, as
 * a single transfer's does. A payload that lies in no pooled slab (a small frame was copied, TLS
 * reads) has no lease: nothing is allocated for it.
 */
import type { SlabLease, SlabPool } from "../listeners/slab-pool.js";

export class LentPayload {
  private lease: SlabLease | null = null;

  /** `slabs`: the pool the connection's reads come from, or null (payloads are plain slices). */
  constructor(private readonly slabs: SlabPool | null) {}

  /** A transfer's payload was cut from a read: its slab is held from now on. */
  add(piece: Buffer): void {
    const slabs = this.slabs;
    if (slabs === null || slabs.slabOf(piece) === undefined) return;
    (this.lease ??= slabs.lease()).add(piece);
  }

  /** The lease for the message made of the payload (null: nothing lent); from here the message carries it. */
  take(): SlabLease | null {
    const lease = this.lease;
    this.lease = null;
    return lease;
  }

  /** The delivery is not published (refused, aborted, its link gone): nothing keeps its payload, its slabs go. */
  drop(): void {
    const lease = this.lease;
    if (lease === null) return;
    this.lease = null;
    // No entry ever held it: the publish's own hold was the last.
    lease.handOver(0);
  }
}
