/**
 * A stream connection's heartbeat (the interval Tune agreed, in seconds): each tick sends a
 * Heartbeat frame if nothing else went out since the last one, and a peer silent for two ticks
 * is given up on, as RabbitMQ does.
 */
export class StreamHeartbeat {
  private timer: NodeJS.Timeout | null = null;
  private received = true;
  private sent = false;

  constructor(
    private readonly sendHeartbeat: () => void,
    private readonly peerSilent: () => void,
  ) {}

  start(seconds: number): void {
    if (seconds === 0) return;
    let silentTicks = 0;
    this.timer = setInterval(() => {
      if (!this.received && ++silentTicks >= 2) return this.peerSilent();
      if (this.received) silentTicks = 0;
      this.received = false;
      if (!this.sent) this.sendHeartbeat();
      this.sent = false;
    }, seconds * 1000);
    this.timer.unref();
  }

  receivedSomething(): void {
    this.received = true;
  }

  sentSomething(): void {
    this.sent = true;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
