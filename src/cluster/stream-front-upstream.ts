/**
 * A follower's stream connection to the leader's stream listener (docs/STREAMS.md, "Followers
 * serve the stream port"): one per client connection, carrying every command the follower does
 * not answer from its own files. The first is connected while the client logs in, so the leader
 * sees (and checks) the client's own handshake; after a leader change the next one replays that
 * handshake (peer properties, SASL, tune, open, command versions), the leader checking it again,
 * before the client's frames flow on.
 */
import { connect, type Socket } from "node:net";
import { CMD, RC, RESPONSE } from "../stream/protocol.js";
import { FrameSplitter } from "../stream/frame-splitter.js";

export interface UpstreamEndpoint {
  readonly host: string;
  readonly port: number;
}

export interface UpstreamEvents {
  /** The connection is usable: connected, and the handshake (if any) replayed and accepted. */
  ready(): void;
  /** A frame from the leader (its body, without the size prefix, which precedes it in memory). */
  frame(body: Buffer): void;
  /** Closed (or refused by the leader during the replay). */
  closed(): void;
}

/** Frames bigger than this from a leader are refused (a broken peer, not a real chunk). */
const MAX_UPSTREAM_FRAME = 256 * 1024 * 1024;

export class Upstream {
  readonly socket: Socket;
  ready = false;
  private readonly splitter = new FrameSplitter(MAX_UPSTREAM_FRAME);
  private step = 0;
  /** During the replay: the key of the frame the next step waits for. */
  private waitingFor = -1;
  private done = false;

  constructor(
    readonly target: UpstreamEndpoint,
    /** The client's handshake frames to replay (with their size prefixes); null: the client's own go through. */
    private readonly replay: readonly Buffer[] | null,
    private readonly events: UpstreamEvents,
  ) {
    this.socket = connect(target.port, target.host, () => {
      this.socket.setNoDelay(true);
      if (this.replay === null) this.becomeReady();
      else this.next();
    });
    this.socket.on("data", (d: Buffer) => {
      const r = this.splitter.push(d, (body) => {
        if (this.ready) this.events.frame(body);
        else this.replayed(body);
        return !this.socket.destroyed;
      });
      if (r !== null) this.socket.destroy();
    });
    this.socket.on("error", () => undefined);
    this.socket.on("close", () => {
      if (this.done) return;
      this.done = true;
      this.events.closed();
    });
  }

  send(pieces: readonly Buffer[]): void {
    if (this.socket.destroyed) return;
    if (pieces.length === 1) this.socket.write(pieces[0]!);
    else {
      this.socket.cork();
      for (const p of pieces) this.socket.write(p);
      this.socket.uncork();
    }
  }

  close(): void {
    this.socket.destroy();
  }

  private becomeReady(): void {
    this.ready = true;
    this.events.ready();
  }

  /** Sends the next handshake frame (the client's Tune answers the leader's, so it waits for that). */
  private next(): void {
    const frames = this.replay!;
    if (this.step >= frames.length) return this.becomeReady();
    const f = frames[this.step]!;
    const key = f.readUInt16BE(4);
    if (key === CMD.tune) {
      this.waitingFor = CMD.tune;
      return;
    }
    this.waitingFor = key | RESPONSE;
    this.socket.write(f);
  }

  private replayed(body: Buffer): void {
    const key = body.readUInt16BE(0);
    if (key !== this.waitingFor) return; // a heartbeat, or the like: nothing the client waits for
    if (key === CMD.tune) this.socket.write(this.replay![this.step]!);
    else if ((key === (CMD.saslAuthenticate | RESPONSE) || key === (CMD.open | RESPONSE)) && body.readUInt16BE(8) !== RC.ok) {
      // The leader no longer accepts these credentials (or this vhost): the client is not let on.
      this.socket.destroy();
      return;
    }
    this.step++;
    this.next();
  }
}
