/**
 * How a connection ends (AMQP 0-9-1 §2.2.4, §4.2.4): an error becomes channel.close (soft) or
 * connection.close (hard) with the catalogue's reply code; after connection.close is sent only
 * close-ok or close is read, and a peer that never answers is cut off after CLOSE_OK_WAIT_MS. A
 * client's connection.close is answered with close-ok. Each way out releases the connection's
 * resources exactly once (CloseHost.teardown).
 *
 * States: running (or an earlier handshake state, or blocked) → closing → closed; a connection
 * goes straight to closed when the socket ends or is destroyed.
 */
import type { Duplex } from "node:stream";
import type { Logger } from "../../logging/logger.js";
import { decodeMethod, encodeConnectionClose, encodeConnectionCloseOk, FRAME_METHOD, MethodId } from "../codec/generated.js";
import type { OutputBuffer } from "../codec/output-buffer.js";
import { replyFor } from "./reply.js";

export type ConnectionState = "starting" | "tuning" | "opening" | "running" | "blocked" | "closing" | "closed";

const CLOSE_OK_WAIT_MS = 3000;

/** What closing needs of its connection. */
export interface CloseHost {
  state: ConnectionState;
  readonly handshake: { readonly done: boolean };
  readonly output: { readonly out: OutputBuffer; flush(): void };
  readonly socket: Duplex;
  readonly log: Logger;
  readonly heartbeats: { stop(): void };
  readonly channels: ReadonlyMap<number, { closeWithError(code: number, text: string, classId: number, methodId: number): void }>;
  /** Releases channels (unacked messages are requeued), exclusive queues, timers and the registry entry. */
  teardown(): void;
}

export class ConnectionClose {
  /** Runs while we wait for the peer's connection.close-ok. */
  private closeOkTimer: NodeJS.Timeout | null = null;

  constructor(private readonly host: CloseHost) {}

  /** Sends connection.close with the error's code and waits (briefly) for close-ok. */
  connectionError(err: unknown, classId: number, methodId: number): void {
    const state = this.host.state;
    if (state === "closing" || state === "closed") return;
    const reply = replyFor(err);
    if (reply.code === 541) this.host.log.error("internal error", { err });
    else this.host.log.info("closing connection", { code: reply.code, text: reply.text });
    this.send(reply.code, reply.text, classId, methodId);
  }

  /** Closes a channel on a soft error, or the whole connection on a hard one. */
  methodError(err: unknown, channel: number, classId: number, methodId: number): void {
    const reply = replyFor(err);
    const ch = this.host.channels.get(channel);
    if (reply.level === "channel" && ch) {
      ch.closeWithError(reply.code, reply.text, classId, methodId);
      return;
    }
    this.connectionError(err, classId, methodId);
  }

  /** connection.close from the server. */
  send(code: number, text: string, classId: number, methodId: number): void {
    const host = this.host;
    if (host.state === "closing" || host.state === "closed") return;
    if (host.handshake.done) host.teardown();
    host.state = "closing";
    encodeConnectionClose(host.output.out, 0, { replyCode: code, replyText: text, classId, methodId });
    host.output.flush();
    // A peer that never answers close-ok must not hold the socket forever.
    this.closeOkTimer = setTimeout(() => this.destroy(), CLOSE_OK_WAIT_MS);
    this.closeOkTimer.unref();
    // RabbitMQ closes the socket right after refusing a handshake.
    if (!host.handshake.done) host.socket.end();
  }

  /** While closing, only the close handshake matters (AMQP 0-9-1 §2.2.4: discard everything else). */
  onFrameWhileClosing(type: number, channel: number, payload: Buffer): void {
    if (type !== FRAME_METHOD || channel !== 0) return;
    const m = decodeMethod(payload);
    if (m.id !== MethodId.ConnectionCloseOk && m.id !== MethodId.ConnectionClose) return;
    if (m.id === MethodId.ConnectionClose) encodeConnectionCloseOk(this.host.output.out, 0, {});
    this.host.output.flush();
    this.destroy();
  }

  /**
   * The client's connection.close: reply close-ok, then the client closes the socket (close-ok
   * "tells the recipient that it is safe to … close the socket"; RabbitMQ waits for it). What it
   * still sends is read and dropped: amqplib sends connection.close ahead of publishes its channel
   * had buffered, and a FIN from us made those last writes fail (EPIPE, the close callback never
   * called) through a TCP proxy or load balancer. A client that keeps the socket open is cut off
   * after CLOSE_OK_WAIT_MS.
   */
  closedByClient(): void {
    const host = this.host;
    encodeConnectionCloseOk(host.output.out, 0, {});
    host.output.flush();
    host.teardown();
    host.state = "closed";
    this.closeOkTimer = setTimeout(() => host.socket.destroy(), CLOSE_OK_WAIT_MS);
    this.closeOkTimer.unref();
  }

  destroy(): void {
    const host = this.host;
    if (host.state === "closed") return;
    if (host.state !== "closing") host.teardown();
    host.state = "closed";
    host.socket.destroy();
  }

  /** The socket is gone, however it ended. */
  socketClosed(): void {
    const host = this.host;
    if (this.closeOkTimer) clearTimeout(this.closeOkTimer);
    if (host.state !== "closed" && host.state !== "closing") host.teardown();
    if (host.state === "closing") host.heartbeats.stop();
    host.state = "closed";
  }
}
