/**
 * Where a connection's frames go. Over TCP (and TLS) a frame is written as its encoded head, the
 * body's own buffers and the NUL — no body copy — into a corked socket that is uncorked once per
 * tick, so a burst of deliveries leaves in few writes. Over WebSocket each frame is one binary
 * message (as rabbitmq_web_stomp sends one frame per message), which needs the parts joined.
 */
import type { Socket } from "node:net";
import type { WebSocket } from "ws";
import type { Body } from "../broker/values/message-body.js";

export interface FrameOutput {
  /** Writes one frame: `head` is the command and headers with the blank line; the NUL is added. */
  send(head: Buffer, body: Body | null): void;
  /** One EOL: a heart-beat. */
  heartbeat(): void;
  /** False while written data waits for the peer (consumers then take no more). */
  readonly writable: boolean;
  /** Bytes and frames sent (the management API's send_oct / send_cnt). */
  readonly sendOct: number;
  readonly sendCnt: number;
  /** Ends the output after what was written (the peer sees the close). */
  end(): void;
  destroy(): void;
}

/** A frame's NUL, and the EOL RabbitMQ writes after it (allowed between frames, STOMP 1.2 §"Augmented BNF"). */
const NUL = Buffer.from([0, 10]);
const EOL = Buffer.from([10]);

export class SocketOutput implements FrameOutput {
  sendOct = 0;
  sendCnt = 0;
  private corked = false;
  private readonly uncork = (): void => {
    this.corked = false;
    this.socket.uncork();
  };

  constructor(private readonly socket: Socket) {}

  get writable(): boolean {
    return !this.socket.writableNeedDrain;
  }

  send(head: Buffer, body: Body | null): void {
    const s = this.socket;
    if (s.destroyed) return;
    if (!this.corked) {
      this.corked = true;
      s.cork();
      process.nextTick(this.uncork);
    }
    s.write(head);
    let n = head.length + 2;
    if (body !== null) {
      if (Buffer.isBuffer(body)) {
        if (body.length > 0) s.write(body);
        n += body.length;
      } else {
        for (const part of body) {
          s.write(part);
          n += part.length;
        }
      }
    }
    s.write(NUL);
    this.sendOct += n;
    this.sendCnt++;
  }

  heartbeat(): void {
    if (!this.socket.destroyed) this.socket.write(EOL);
  }

  end(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export class WebSocketOutput implements FrameOutput {
  sendOct = 0;
  sendCnt = 0;

  constructor(private readonly ws: WebSocket) {}

  get writable(): boolean {
    return this.ws.bufferedAmount < 1 << 20;
  }

  send(head: Buffer, body: Body | null): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    const parts: Buffer[] = [head];
    if (body !== null) {
      if (Buffer.isBuffer(body)) parts.push(body);
      else for (const p of body) parts.push(p);
    }
    parts.push(NUL);
    const frame = Buffer.concat(parts);
    this.ws.send(frame, { binary: true });
    this.sendOct += frame.length;
    this.sendCnt++;
  }

  heartbeat(): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(EOL, { binary: true });
  }

  end(): void {
    this.ws.close(1000);
  }

  destroy(): void {
    this.ws.terminate();
  }
}
