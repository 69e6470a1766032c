/**
 * STOMP 1.1+ heart-beating, negotiated as rabbitmq_stomp does: the client's `heart-beat: cx,cy`
 * is answered `cy,cx` — the server sends an EOL every cy ms and expects something from the
 * client every cx ms. A client silent for twice its promised interval is gone (the tolerance
 * the spec leaves to the server). 0 on either side turns that direction off.
 */
export interface HeartBeatHost {
  sendHeartbeat(): void;
  /** True when anything arrived since the last look (and forgets it). */
  takeReadFlag(): boolean;
  silent(ms: number): void;
}

export class HeartBeats {
  private sending: NodeJS.Timeout | null = null;
  private checking: NodeJS.Timeout | null = null;

  /** The CONNECTED header's value for the client's `heart-beat` header. */
  static negotiate(header: string | undefined): { sendMs: number; expectMs: number } {
    if (header === undefined) return { sendMs: 0, expectMs: 0 };
    const comma = header.indexOf(",");
    const cx = Number(header.slice(0, comma));
    const cy = Number(header.slice(comma + 1));
    if (comma < 0 || !Number.isInteger(cx) || !Number.isInteger(cy) || cx < 0 || cy < 0) return { sendMs: -1, expectMs: -1 };
    return { sendMs: cy, expectMs: cx };
  }

  start(host: HeartBeatHost, sendMs: number, expectMs: number): void {
    if (sendMs > 0) {
      this.sending = setInterval(() => host.sendHeartbeat(), sendMs);
      this.sending.unref();
    }
    if (expectMs > 0) {
      const window = expectMs * 2;
      this.checking = setInterval(() => {
        if (!host.takeReadFlag()) host.silent(window);
      }, window);
      this.checking.unref();
    }
  }

  stop(): void {
    if (this.sending) clearInterval(this.sending);
    if (this.checking) clearInterval(this.checking);
    this.sending = this.checking = null;
  }
}
