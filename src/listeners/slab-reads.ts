/**
 * Socket reads into slabs, for accepted plain-TCP sockets (issue 30).
 *
 * Node's default read path allocates a 64 KiB ArrayBuffer for every read and shrinks it to what
 * was read. V8 counts each as external memory, and past every 64 MB of it marks the whole heap:
 * at 700 MB/s of 64 KB bodies that was a mark-compact every ~80 ms. Here a connection reads into
 * the unused tail of its current slab instead: one allocation serves many reads, and one read may
 * take the whole tail, so a large body comes in fewer, larger reads. Frames still point into what
 * was read (bodies are slices), so a slab lives as long as any body cut from it. Given a pool
 * (the AMQP listener's), large slabs come from it and go back once nothing holds them
 * (slab-pool.ts); otherwise (MQTT, streams) none is reused.
 *
 * Sizing: a socket starts on a 1 KiB slab (a handshake; 1,000 idle connections cost the broker no
 * more memory than with Node's reads), moves to 256 KiB slabs once a read fills its whole buffer
 * (the peer sends faster than one small read takes), and back to small slabs after four reads of a
 * few bytes in a row (heartbeats of an idle connection), so an idle socket ends up holding a small
 * slab.
 *
 * Node offers this (`onread`) only to sockets it constructs, not to those a server accepts, so the
 * accepted socket's handle is moved to a new Socket built with `onread` (`new Socket({ handle })`,
 * the constructor Node's own server uses). Where the handle cannot take a user buffer the
 * accepted socket is kept as it is. Reads reach 'data' listeners as before; pause() and resume()
 * stop and start reading as before (net.Socket handles both for onread sockets).
 *
 * Measured (`coney-perf sizes`, broker user + system CPU per consumed message, alternating runs
 * against the default read path): 64 KB 87 → 75 µs, 1 MB 1,200 → 1,050 µs, 16 B unchanged.
 */
import { Socket } from "node:net";
import type { Slab, SlabPool } from "./slab-pool.js";

/** The first slab of every socket, and the slab after four tiny reads in a row. */
export const SMALL_SLAB = 1024;
/** The slab of a socket whose reads fill their buffers. */
export const LARGE_SLAB = 256 * 1024;
/** A tail shorter than this is not read into: the next read starts a new slab. */
const SMALL_TAIL_MIN = 256;
export const LARGE_TAIL_MIN = 64 * 1024;
/** A read this short (a heartbeat frame is 8 bytes) counts towards going back to small slabs. */
const TINY_READ = 64;
/**
 * This many tiny reads in a row move a socket back to small slabs. One is not enough: a busy
 * connection also sends lone acks, and dropping a large slab's tail for each would allocate a new
 * 256 KiB slab per flip, more than Node's reads ever did.
 */
const TINY_READS_TO_SHRINK = 4;

/** Whoever parses the reads: whether it still holds uncopied bytes of some memory (FrameReader). */
export interface ReadBytesKeeper {
  holdsBytesOf(memory: ArrayBufferLike): boolean;
}

/**
 * A reader that keeps a frame it must have in one memory (AMQP 1.0's: its sections are decoded
 * from one buffer; src/amqp1/amqp1-frames.ts). Before a read the slabs ask how many bytes its
 * frame in progress still lacks; when they do not fit the slab's tail, the next read goes to a
 * new slab and the frame's first bytes are carried there (copied to its start), so the frame
 * arrives whole in one slab — a copy of the part already read, in pooled memory, instead of
 * joining the whole frame into new memory once it is complete.
 */
export interface FrameCarrier {
  /** Bytes the frame in progress still lacks (1 while its size is not known yet); 0: none in progress. */
  lacking(): number;
  /** The frame's bytes so far, when moving them to the start of `into` is worth it (the whole frame fits): copies them there, reads them from there, returns their count; else 0. */
  carryInto(into: Buffer): number;
}

/**
 * Retired slabs kept for a reader that never settles (a bug) are dropped past this many: left to
 * the garbage collector, never reused, so the list cannot grow without bound.
 */
const RETIRED_MAX = 16;

/**
 * The slab tails one socket reads into (pure: no socket, testable alone). With a pool, large
 * slabs come from it and go back once their holders are done (slab-pool.ts): the reader holds
 * the slab it reads into, and a slab it has moved off until settle() says no cut of it is pending.
 */
export class SlabTails {
  private slab: Buffer;
  private used = 0;
  private large = false;
  /** Tiny reads in a row while on large slabs. */
  private tinyReads = 0;
  /** The tail handed out for the read in progress. */
  private tail: Buffer;
  /** The pool's slab being read into (null: a small slab, or no pool). */
  private pooled: Slab | null = null;
  /** Pooled slabs moved off, still held until settle(). */
  private readonly retired: Slab[] = [];
  /** The reader whose frame in progress moves with it to a new large slab (FrameCarrier), if any. */
  carrier: FrameCarrier | null = null;

  constructor(public pool: SlabPool | null = null) {
    this.slab = Buffer.allocUnsafeSlow(SMALL_SLAB);
    this.tail = this.slab;
  }

  /**
   * The reader is done with what it read so far, except what `keeper` still holds uncopied (the
   * start of a frame still arriving): slabs moved off are released unless it holds bytes of them.
   */
  settle(keeper: ReadBytesKeeper | null): void {
    const retired = this.retired;
    if (retired.length === 0) return;
    let kept = 0;
    for (const slab of retired) {
      if (keeper !== null && keeper.holdsBytesOf(slab.bytes.buffer)) retired[kept++] = slab;
      else slab.release();
    }
    retired.length = kept;
  }

  /** The socket closed: every hold of the reader's goes (nothing it cut is read any more). */
  close(): void {
    this.settle(null);
    this.pooled?.release();
    this.pooled = null;
  }

  /** Where the next read goes. */
  next(): Buffer {
    const large = this.large;
    const tail = this.slab.length - this.used;
    if (large && this.carrier !== null) {
      // A frame in progress that will not fit the tail moves to a new slab (FrameCarrier).
      const lacking = this.carrier.lacking();
      if (tail < LARGE_TAIL_MIN || (lacking > tail && lacking < LARGE_SLAB)) {
        this.newSlab(LARGE_SLAB);
        if (lacking > 0) this.used = this.carrier.carryInto(this.slab);
      }
    } else if (tail < (large ? LARGE_TAIL_MIN : SMALL_TAIL_MIN)) {
      this.newSlab(large ? LARGE_SLAB : SMALL_SLAB);
    }
    this.tail = this.slab.subarray(this.used);
    return this.tail;
  }

  /** `n` bytes were read into the tail last handed out: returns them (a view, not a copy). */
  read(n: number): Buffer {
    const chunk = this.tail.subarray(0, n);
    this.used += n;
    if (!this.large) {
      if (n === this.tail.length) {
        this.large = true;
        this.tinyReads = 0;
        this.newSlab(LARGE_SLAB);
      }
    } else if (n > TINY_READ) {
      this.tinyReads = 0;
    } else if (++this.tinyReads === TINY_READS_TO_SHRINK) {
      this.large = false;
      this.newSlab(SMALL_SLAB);
    }
    return chunk;
  }

  /** For tests: whether reads now go into large slabs. */
  get readsLarge(): boolean {
    return this.large;
  }

  private newSlab(size: number): void {
    const old = this.pooled;
    if (old !== null) {
      if (this.retired.length === RETIRED_MAX) this.retired.length = 0;
      this.retired.push(old);
      this.pooled = null;
    }
    if (this.pool !== null && size === LARGE_SLAB) {
      this.pooled = this.pool.take();
      this.slab = this.pooled.bytes;
    } else {
      this.slab = Buffer.allocUnsafeSlow(size);
    }
    this.used = 0;
  }
}

/** The parts of Node's TCP handle this relies on. */
interface UserBufferHandle {
  useUserBuffer(buf: Uint8Array): void;
}

/**
 * The accepted `socket` as a socket that reads into slabs, or the same socket when its handle
 * cannot take a user buffer (TLS, or a Node without it). Call it before anything listens on the
 * socket, on a server created with `pauseOnConnect` (so no read happens before the move), and
 * resume() what it returns once its 'data' listener is on (a paused socket stays paused).
 * `afterRead` runs after each read's 'data' listeners (the inter-node link settles its slabs there).
 */
export function readIntoSlabs(socket: Socket, tails: SlabTails = new SlabTails(), afterRead?: () => void): Socket {
  const accepted = socket as unknown as { _handle: Partial<UserBufferHandle> | null };
  const handle = accepted._handle;
  if (handle === null || typeof handle.useUserBuffer !== "function") return socket;
  // The accepted socket lets go of the handle but stays until the new one closes: the server
  // counts it, so server.close() still waits for the connection (destroying a socket without a
  // handle closes nothing and only ends that count).
  accepted._handle = null;
  const moved: Socket = new Socket({
    handle,
    onread: {
      buffer: () => tails.next(),
      callback: (n: number) => {
        moved.emit("data", tails.read(n));
        afterRead?.();
      },
    },
  } as ConstructorParameters<typeof Socket>[0]);
  moved.once("close", () => {
    tails.close();
    socket.destroy();
  });
  return moved;
}

/**
 * The connection listener of a plain-TCP server created with `pauseOnConnect`: each accepted
 * socket is moved onto slabs, handed to `accept` (which adds its 'data' listener), then resumed.
 */
export function acceptIntoSlabs(accept: (socket: Socket, tails: SlabTails | null) => void, pool: SlabPool | null = null): (socket: Socket) => void {
  return (accepted) => {
    const tails = new SlabTails(pool);
    const socket = readIntoSlabs(accepted, tails);
    accept(socket, socket === accepted ? null : tails);
    if (!socket.destroyed) socket.resume();
  };
}
