/**
 * Opening inter-node links (docs/CLUSTERING.md, "The link protocol"): `acceptNodeLink` serves an
 * accepted socket (TCP, or a Unix socket between workers) once the connecting node proved the
 * shared secret; `connectNodeLink` does the connecting side's handshake and resolves with the
 * LeaderLink to hand to Broker.leadQueueElsewhere. `listenForNodeLinks` is a TCP/Unix server doing
 * the former for every connection.
 *
 * A link is one direction of use: the connecting node reaches the queues the accepting node leads.
 * Two nodes that each lead queues the other uses open one link each way.
 */
import { createServer, type Server, type Socket } from "node:net";
import type { Broker } from "../broker/index.js";
import { MAX_UNAUTHENTICATED_FRAME } from "../auth/shared-secret-proof.js";
import { FrameSplitter, readFrames } from "./frame-splitter.js";
import { OwnRuns } from "./own-runs.js";
import { FEATURE_DELIVER_OWN, FEATURE_OWN_RUN, OUR_FEATURES, answer, challenge, helloFrame, readReady, readyFrame } from "./link-handshake.js";
import { LeaderLink } from "./leader-link.js";
import { LinkSession } from "./link-session.js";
import { linkSlabPool, readLinkIntoSlabs, startPooling, type LinkReads } from "./link-reads.js";
import type { SlabPool } from "../listeners/slab-pool.js";
import type { NodeQueryAnswerer } from "./node-query-frames.js";

/** The credit a leader grants each link (docs/CLUSTERING.md: 2,000 messages / 8 MiB). */
export const DEFAULT_CREDIT_MESSAGES = 2000;
export const DEFAULT_CREDIT_BYTES = 8 * 1024 * 1024;

export interface NodeLinkOptions {
  /** The cluster's shared secret (both ends prove they hold it). */
  readonly secret: Buffer;
  /** This node's name. */
  readonly node: string;
  readonly creditMessages?: number;
  readonly creditBytes?: number;
  /** Answers the peers' node queries (frames 60–69); without it they are refused. */
  readonly answerQuery?: NodeQueryAnswerer;
  /** The pool the link's reads return their slabs to (link-reads.ts); by default one per link. */
  readonly slabs?: SlabPool;
}

/** What a handshake's step is given: the socket (moved onto slabs), its frames' splitter, and its reads. */
interface Handshaking {
  readonly socket: Socket;
  readonly splitter: FrameSplitter;
  readonly reads: LinkReads;
}

/**
 * Runs a handshake on `given` (first moved onto slabs: link-reads.ts): `step` sees each frame and
 * calls `done` with the result or `fail` with why (the socket is then destroyed). Nothing larger
 * than MAX_UNAUTHENTICATED_FRAME is read. `start` runs once the moved socket is listened to (it
 * writes the first frame).
 */
function handshake<T>(given: Socket, step: (f: Buffer, h: Handshaking, done: (value: T) => void, fail: (why: string) => void) => void, start?: (socket: Socket) => void, timeoutMs?: number): Promise<T> {
  const splitter = new FrameSplitter(MAX_UNAUTHENTICATED_FRAME);
  const reads = readLinkIntoSlabs(given, splitter);
  const socket = reads.socket;
  const h: Handshaking = { socket, splitter, reads };
  socket.setNoDelay(true);
  const result = new Promise<T>((resolve, reject) => {
    const fail = (why: string): void => {
      clearTimeout(timer);
      stop();
      socket.destroy();
      reject(new Error(why));
    };
    const done = (value: T): void => {
      clearTimeout(timer);
      stop();
      resolve(value);
    };
    // The moved socket is the one to close: the caller's `given` no longer owns the connection.
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => fail(`node link handshake not done within ${timeoutMs} ms`), timeoutMs);
    const stop = readFrames(socket, splitter, (f) => step(f, h, done, fail), undefined, (err) => fail(err.message));
    socket.once("close", () => reject(new Error("node link closed during its handshake")));
    socket.on("error", (err) => reject(err));
  });
  start?.(socket);
  return result;
}

/** Serves one accepted socket; resolves with the session once the peer is authenticated (rejects, and closes it, otherwise). */
export function acceptNodeLink(broker: Broker, socket: Socket, opts: NodeLinkOptions): Promise<LinkSession> {
  let check: ((f: Buffer) => boolean) | null = null;
  let peer = "";
  let features = 0;
  return handshake(socket, (f, h, done, fail) => {
    if (check === null) {
      const c = challenge(opts.secret, f);
      if (c === null) return fail("malformed link hello");
      check = c.check;
      peer = c.peer;
      features = c.features & OUR_FEATURES;
      h.socket.write(c.frame);
      return;
    }
    if (!check(f)) return fail(`node link from '${peer}' failed authentication`);
    h.socket.write(readyFrame(opts.creditMessages ?? DEFAULT_CREDIT_MESSAGES, opts.creditBytes ?? DEFAULT_CREDIT_BYTES, opts.node, features));
    const session = new LinkSession(broker, h.socket, peer, h.splitter, startPooling(h.reads, opts.slabs ?? linkSlabPool()), opts.answerQuery ?? null);
    session.deliversOwn = (features & FEATURE_DELIVER_OWN) !== 0;
    session.own = new OwnRuns((features & FEATURE_OWN_RUN) !== 0);
    done(session);
  });
}

/** The connecting side of a link over an open socket: authenticates, then resolves with the port to the leader. */
/** `features`: what this end offers in HELLO (link-handshake.ts; default all this version knows, 0 as a node from before the features byte). */
export function connectNodeLink(socket: Socket, opts: { readonly secret: Buffer; readonly node: string; readonly slabs?: SlabPool; readonly features?: number; readonly timeoutMs?: number }): Promise<LeaderLink> {
  const offered = opts.features ?? OUR_FEATURES;
  const { frame, nonce } = helloFrame(opts.node, offered);
  let proved = false;
  return handshake<LeaderLink>(
    socket,
    (f, h, done, fail) => {
      if (!proved) {
        const proof = answer(opts.secret, opts.node, nonce, f);
        if (proof === null) return fail("the node at the other end of the link failed authentication");
        proved = true;
        h.socket.write(proof);
        return;
      }
      const terms = readReady(f);
      if (terms === null) return fail("the link's leader did not answer READY");
      done(new LeaderLink(h.socket, { ...terms, features: terms.features & offered }, h.splitter, startPooling(h.reads, opts.slabs ?? linkSlabPool())));
    },
    (moved) => moved.write(frame),
    opts.timeoutMs,
  );
}

/** A server accepting links for `broker` (listen on it: a TCP port, or a Unix socket path). */
export function listenForNodeLinks(broker: Broker, opts: NodeLinkOptions, onError?: (err: Error) => void): Server {
  return createServer((socket) => {
    acceptNodeLink(broker, socket, opts).catch((err: Error) => onError?.(err));
  });
}

export { LeaderLink } from "./leader-link.js";
export { LinkSession } from "./link-session.js";
