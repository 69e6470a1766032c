/**
 * The leader's end of a replication connection until it is a follower's (replication-auth.ts has
 * the exchange): the peer names itself (Hello), the leader answers with its nonce and proof
 * (Challenge), the peer proves it holds the cluster's secret (Proof). Anything else before that,
 * a frame larger than an unauthenticated one may be, or a wrong proof closes the socket with one
 * log line. Only then are its frames handed on, to the follower link `joined` makes for it.
 */
import type { Socket } from "node:net";
import type { Logger } from "../logging/logger.js";
import { MAX_UNAUTHENTICATED_FRAME, NONCE_BYTES, followerProof, leaderProof, newNonce, proofMatches } from "./replication-auth.js";
import { FrameSplitter, FrameType, readName, sendFrame } from "./replication-frames.js";

/** Where an authenticated follower's frames go. */
export interface FollowerFrames {
  frame(type: FrameType, payload: Buffer): void;
  /** The socket closed. */
  closed(): void;
}

export function acceptFollower(socket: Socket, secret: Buffer, logger: Logger, joined: (name: string) => FollowerFrames): void {
  socket.setNoDelay(true);
  let follower: FollowerFrames | null = null;
  let hello: { name: string; nonce: Buffer; leaderNonce: Buffer } | null = null;
  const refuse = (why: string): void => {
    logger.warn("cluster: replication connection refused", { remote: socket.remoteAddress, why });
    socket.destroy();
  };
  const splitter = new FrameSplitter((type, payload) => {
    if (socket.destroyed) return;
    if (follower !== null) return follower.frame(type, payload);
    if (hello === null) {
      if (type !== FrameType.Hello) return refuse("no hello");
      const { name, rest } = readName(payload);
      if (rest.length !== NONCE_BYTES) return refuse("bad hello");
      hello = { name, nonce: Buffer.from(rest), leaderNonce: newNonce() };
      sendFrame(socket, FrameType.Challenge, hello.leaderNonce, [leaderProof(secret, hello.nonce, hello.leaderNonce, name)]);
      return;
    }
    if (type !== FrameType.Proof) return refuse("no proof");
    if (!proofMatches(payload, followerProof(secret, hello.nonce, hello.leaderNonce, hello.name))) return refuse(`${hello.name} does not hold the cluster's secret`);
    splitter.maxFrame = Infinity;
    follower = joined(hello.name);
  });
  splitter.maxFrame = MAX_UNAUTHENTICATED_FRAME;
  socket.on("data", (d: Buffer) => {
    try {
      splitter.push(d);
    } catch (err) {
      refuse((err as Error).message);
    }
  });
  socket.on("error", () => undefined);
  socket.on("close", () => follower?.closed());
}
