/**
 * One stream-protocol connection's reading side: reads frames (frame-splitter.ts), walks the
 * handshake (stream-handshake.ts), then hands each command to its handler (stream-commands.ts),
 * and closes as RabbitMQ does: an oversized or unparseable frame after login gets a Close with
 * FRAME_TOO_LARGE / UNKNOWN_FRAME, before login the socket is just closed. Its state, output,
 * registry record and end are StreamConnectionState's (stream-connection-state.ts).
 *
 * Invariants: commands are handled one at a time in arrival order (a login that waits for a
 * token verification holds the reading); nothing a malformed frame asked for is done.
 */
import { clientContext, type ClientConnection } from "../broker/index.js";
import { CMD, RC, RESPONSE } from "./protocol.js";
import { handleCommand, type CommandHost } from "./stream-commands.js";
import { authenticate, openVhost, saslMechanisms, serverPeerProperties, type AuthOutcome } from "./stream-handshake.js";
import { FrameCursor, FrameWriter, MalformedFrame, response } from "./wire.js";
import { StreamConnectionState } from "./stream-connection-state.js";

export class StreamConnection extends StreamConnectionState implements CommandHost, ClientConnection {
  protected received(data: Buffer): void {
    this.beat.receivedSomething();
    this.traffic.recvOct += data.length;
    if (this.step === "closed") return;
    if (this.busy) {
      this.queued.push(data);
      return;
    }
    this.readFrames(data);
  }

  /** Handles the frames `data` completes; false when an oversized frame stops the reading. */
  private readFrames(data: Buffer): boolean {
    const r = this.splitter.push(data, (f) => this.frame(f));
    if (this.step === "client-closed") this.end();
    else if (r !== null) this.frameTooLarge(r.tooLarge);
    return r === null;
  }

  /** Handles one frame; false stops the reading (a login waits, or the connection closes). */
  private frame(f: Buffer): boolean {
    this.traffic.recvCnt++;
    if (this.step === "closed") return false;
    if (f.length < 4) return this.unknownFrame("a frame shorter than its key and version");
    const key = f.readUInt16BE(0);
    const version = f.readUInt16BE(2);
    const body = new FrameCursor(f.subarray(4));
    try {
      if (this.step === "closing") {
        if (key === (CMD.close | RESPONSE)) {
          this.end();
          return false;
        }
        return true;
      }
      if (this.step === "client-closed" || (this.step === "opened" && key === CMD.close)) {
        // RabbitMQ 3.10's reader handles every frame of the read that held the client's Close, so
        // a Close sent twice is answered twice (rabbitmq-stream-js-client waits for each); other
        // frames after it are not acted on (as RabbitMQ's newer readers drop them all).
        if (key === CMD.close) this.send(response(CMD.close, body.u32(), RC.ok).frame());
        this.step = "client-closed";
        return true;
      }
      if (key === CMD.heartbeat) return true;
      if (this.step !== "opened") return this.handshake(key, body);
      if (key === (CMD.close | RESPONSE)) {
        this.end();
        return false;
      }
      if (!handleCommand(this, key, version, body)) return this.unknownFrame(`unknown command 0x${key.toString(16)}`);
      return true;
    } catch (err) {
      if (err instanceof MalformedFrame) return this.unknownFrame(err.message);
      // A fault of ours: this connection closes, the node and its other clients go on.
      this.node.log.error("stream command failed", { connection: this.name, key, err });
      this.node.countError(RC.internalError);
      if (this.step === "opened") this.sendClose(RC.internalError, "internal error");
      else this.end();
      return false;
    }
  }

  private handshake(key: number, body: FrameCursor): boolean {
    const s = this.node.settings;
    if (key === CMD.peerProperties && this.step === "peer-properties") {
      const corr = body.u32();
      this.clientProperties = body.map();
      this.send(response(CMD.peerProperties, corr, RC.ok, 256).map(serverPeerProperties(s.clusterName)).frame());
      this.step = "sasl";
      return true;
    }
    if (key === CMD.saslHandshake && this.step === "sasl") {
      const corr = body.u32();
      const mechanisms = saslMechanisms(this.peer.certName);
      this.send(mechanisms.reduce((w, m) => w.str(m), response(CMD.saslHandshake, corr, RC.ok).i32(mechanisms.length)).frame());
      return true;
    }
    if (key === CMD.saslAuthenticate && this.step === "sasl") {
      const corr = body.u32();
      const mechanism = body.str();
      const data = body.bytes();
      const outcome = authenticate(this.node, mechanism, data, this.peer);
      if (!(outcome instanceof Promise)) return this.authenticated(corr, outcome);
      this.busy = true;
      void outcome.then((o) => {
        this.busy = false;
        if (this.authenticated(corr, o)) this.resume();
      });
      return false;
    }
    if (key === CMD.tune && this.step === "tune") {
      const frameMax = body.u32();
      const heartbeat = body.u32();
      this.frameMax = s.frameMax === 0 ? frameMax : frameMax === 0 ? s.frameMax : Math.min(frameMax, s.frameMax);
      this.heartbeat = s.heartbeat === 0 ? heartbeat : heartbeat === 0 ? s.heartbeat : Math.min(heartbeat, s.heartbeat);
      this.step = "open";
      return true;
    }
    if (key === CMD.open && this.step === "open") {
      const corr = body.u32();
      const vhost = body.str() ?? "";
      const opened = openVhost(this.node, this.checker!, vhost);
      if ("code" in opened) {
        this.node.log.info("stream connection refused", { connection: this.name, reason: opened.why });
        this.send(response(CMD.open, corr, opened.code).map([]).frame());
        this.node.countError(opened.code);
        this.end();
        return false;
      }
      this.openedVhost = opened.vhost;
      this.context = clientContext(this.checker!, this, "stream", this.peer.peerHost);
      const { host, port } = this.advertised();
      this.send(response(CMD.open, corr, RC.ok, 128).map([["advertised_host", host], ["advertised_port", String(port)]]).frame());
      this.step = "opened";
      this.splitter.maxFrame = this.frameMax;
      if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
      this.handshakeTimer = null;
      this.beat.start(this.heartbeat);
      this.node.connections.add(this);
      this.node.broker.connections.add(this);
      return true;
    }
    // Anything else before the connection is open: RabbitMQ closes without a word.
    this.end();
    return false;
  }

  private authenticated(corr: number, o: AuthOutcome): boolean {
    if (!o.ok) {
      this.node.log.info("stream login refused", { connection: this.name, reason: o.why });
      this.send(response(CMD.saslAuthenticate, corr, o.code).frame());
      this.node.countError(o.code);
      this.end();
      return false;
    }
    this.userName = o.user;
    this.checker = o.permissions;
    this.send(response(CMD.saslAuthenticate, corr, RC.ok).frame());
    const s = this.node.settings;
    this.send(new FrameWriter(CMD.tune).u32(s.frameMax).u32(s.heartbeat).frame());
    this.step = "tune";
    return true;
  }

  private resume(): void {
    const data = this.queued.splice(0);
    for (const d of data) {
      if (this.busy || this.step === "closed") {
        this.queued.push(d);
        continue;
      }
      if (!this.readFrames(d)) return;
    }
    if (data.length === 0) this.readFrames(Buffer.alloc(0));
  }

  private frameTooLarge(size: number): void {
    // The rest of that frame keeps arriving while the Close is on its way: reported once.
    if (this.step === "closing" || this.step === "closed") return;
    this.node.countError(RC.frameTooLarge);
    this.node.log.warn("stream frame too large", { connection: this.name, size, max: this.splitter.maxFrame });
    if (this.step !== "opened") return this.end();
    this.sendClose(RC.frameTooLarge, "frame too large");
  }

  private unknownFrame(why: string): boolean {
    this.node.countError(RC.unknownFrame);
    this.node.log.warn("stream frame not understood", { connection: this.name, why });
    if (this.step !== "opened") this.end();
    else this.sendClose(RC.unknownFrame, "unknown frame");
    return false;
  }

  /** The server closes: Close, then the socket once the client answers (or after a grace period). */
  private sendClose(code: number, reason: string): void {
    if (this.step === "closing" || this.step === "closed") return;
    this.send(new FrameWriter(CMD.close, 1, 64).u32(1).u16(code).str(reason).frame());
    this.step = "closing";
    setTimeout(() => this.end(), 1000).unref();
  }
}
