/**
 * An MQTT connection's deadline: first the time CONNECT may take (fixed, whatever arrives), then
 * 1.5 × the client's keep-alive since the last bytes received (MQTT 3.1.1 §3.1.2.10). One timer,
 * re-aimed only when it fires: receiving data costs one clock read, no timer churn.
 */
export class KeepAlive {
  private last = 0;
  private windowMs = 0;
  private followsActivity = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly expired: () => void) {}

  /** Starts a window of `seconds` (0 = none); `followsActivity` lets received bytes extend it. */
  arm(seconds: number, followsActivity: boolean): void {
    this.stop();
    if (seconds <= 0) return;
    this.windowMs = seconds * 1000;
    this.followsActivity = followsActivity;
    this.last = Date.now();
    this.schedule(this.windowMs);
  }

  touch(): void {
    if (this.followsActivity) this.last = Date.now();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => this.check(), ms);
    this.timer.unref();
  }

  private check(): void {
    this.timer = null;
    const elapsed = Date.now() - this.last;
    if (elapsed >= this.windowMs) this.expired();
    else this.schedule(this.windowMs - elapsed);
  }
}
