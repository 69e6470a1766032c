/**
 * The inter-node link's socket reads into slabs (issue 42, third pass), as the AMQP listener's do
 * (src/listeners/slab-reads.ts): Node's default read path allocated a 64 KiB buffer per read and
 * pushed it through the readable stream's machinery; here a read lands in the tail of the link's
 * current slab and reaches the frame splitter directly.
 *
 * Body retention (the AMQP rule, src/listeners/slab-pool.ts): after the handshake, large slabs
 * come from a pool and go back once nothing holds them. Whatever a frame keeps past its read is
 * copied (strings, property lists, a round trip's reply, a consume's arguments) or, for a message
 * body of LEASED_BODY_MIN bytes or more, held by a SlabLease the Message carries
 * (link-frames.ts readMessage); a body the receiver keeps without counting pins its lease. The
 * reader's own hold on a slab it moved off ends once the splitter holds no start of a frame in it.
 * The handshake reads into small slabs of its own (its frames are checked, not kept).
 *
 * The socket's handle moves to a new Socket (slab-reads.ts readIntoSlabs) before anything is
 * read; the socket a caller holds stays the way to end the connection: destroying it destroys the
 * moved one (the caller cuts or retries a link through it, e.g. test/node-link/two-nodes.ts).
 */
import type { Socket } from "node:net";
import { SlabPool } from "../listeners/slab-pool.js";
import { LARGE_SLAB, SlabTails, readIntoSlabs } from "../listeners/slab-reads.js";
import type { FrameSplitter } from "./frame-splitter.js";

/**
 * Free slabs a link's pool keeps: a link reads at most a socket's worth ahead of its frames, so a
 * few slabs serve it; more are left to the garbage collector.
 */
const LINK_FREE_SLABS = 8;

/**
 * A link end's pool of read slabs. Returned slabs are poisoned when CONEY_POISON_READS=1, as the
 * AMQP listener's are (start-broker.ts; the test runner sets it), so a body read after its slab
 * went back shows it.
 */
export function linkSlabPool(): SlabPool {
  return new SlabPool({ slabBytes: LARGE_SLAB, maxFree: LINK_FREE_SLABS, poison: process.env["CONEY_POISON_READS"] === "1" });
}

/** A link socket reading into slabs: `socket` to use from now on, `tails` to give the pool after the handshake. */
export interface LinkReads {
  readonly socket: Socket;
  /** Null when the handle could not be moved (then reads are Node's own and nothing is pooled). */
  readonly tails: SlabTails | null;
}

/**
 * Moves `socket` (accepted or connected, nothing read yet) onto slabs whose bytes `splitter`
 * may still hold between reads. The pool is given later (`startPooling`): none during the handshake.
 */
export function readLinkIntoSlabs(socket: Socket, splitter: FrameSplitter): LinkReads {
  // A socket still connecting keeps its handle (its connect completes on the socket that began it), and a TLS
  // socket's handle is its TLS state (a spread cluster's `--cluster-tls`): Node's reads, nothing pooled.
  if (socket.connecting || (socket as Socket & { encrypted?: boolean }).encrypted === true) return { socket, tails: null };
  const tails = new SlabTails(null);
  const moved = readIntoSlabs(socket, tails, () => tails.settle(splitter));
  if (moved === socket) return { socket, tails: null };
  // The caller's socket has no handle any more: ending it ends the connection.
  socket.once("close", () => moved.destroy());
  return { socket: moved, tails };
}

/** The handshake is over: large slabs now come from `pool` (null when the reads could not move: nothing to pool). */
export function startPooling(reads: LinkReads, pool: SlabPool): SlabPool | null {
  if (reads.tails === null) return null;
  reads.tails.pool = pool;
  return pool;
}
